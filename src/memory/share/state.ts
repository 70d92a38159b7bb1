/**
 * What a quackd has told the fleet's broker, kept beside the store (share-state.json, 0600): per
 * body and entry id, the version the broker holds or `gone <time>` for a forget. The replicator
 * publishes whatever the store says differently; `memory doctor` summarises it.
 */
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SHARE_STATE_FILE = 'share-state.json';
export const sharePath = (memoryDir: string): string => join(memoryDir, SHARE_STATE_FILE);

/** `gone <time>`: the broker was told this id was forgotten then. */
export const GONE = 'gone ';
export const goneTime = (told: string | undefined): string | undefined => (told?.startsWith(GONE) === true ? told.slice(GONE.length) : undefined);

export type ToldState = Record<string, Record<string, string>>;

/** Per body and id; nothing (all to send again) when the file is missing or damaged. */
export function readState(path: string): ToldState {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as { v?: unknown; bodies?: unknown };
    if (v.v !== 1 || typeof v.bodies !== 'object' || v.bodies === null) return {};
    return v.bodies as ToldState;
  } catch {
    return {};
  }
}

/** Written whole and renamed into place, so a crash leaves the old file or the new one. */
export function writeState(path: string, state: ToldState): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, JSON.stringify({ v: 1, bodies: state }), { mode: 0o600 });
  renameSync(tmp, path);
}

export interface ShareSummary {
  readonly body: string;
  /** Entries the broker holds from or for this store, and forgets it was told. */
  readonly entries: number;
  readonly forgets: number;
}

/** For doctor: per body, what the broker was told, and when it was last written; undefined when this store never shared. */
export function shareSummary(memoryDir: string): { readonly bodies: ShareSummary[]; readonly lastSync: string } | undefined {
  const path = sharePath(memoryDir);
  let lastSync: string;
  try {
    lastSync = statSync(path).mtime.toISOString();
  } catch {
    return undefined;
  }
  const bodies = Object.entries(readState(path)).map(([body, told]) => {
    const forgets = Object.values(told).filter((t) => goneTime(t) !== undefined).length;
    return { body, entries: Object.keys(told).length - forgets, forgets };
  });
  return { bodies, lastSync };
}
