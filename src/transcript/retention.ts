/**
 * Transcript retention, so a robot that runs all day does not fill its SD card: of each robot's
 * runs (by the body in the run's start line) the newest `keep_runs` are kept, and every run that
 * started in the last `keep_days` days. A run still being written is its robot's newest, so it is
 * always kept. Memory episodes are not touched: they have their own cap (src/memory/entry.ts).
 */
import { closeSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { listTranscriptIds } from './reader.js';

export const RETENTION_DEFAULTS = { keep_runs: 200, keep_days: 30 } as const;

/** The config file's `transcripts:` section. */
export const TranscriptsSectionSchema = z
  .object({
    /** Newest runs kept per robot, whatever their age (at least 1: the run being written). */
    keep_runs: z.int().min(1).max(1_000_000).optional(),
    /** Runs of the last this many days are kept, however many there are. */
    keep_days: z.number().min(0).max(36_500).optional(),
  })
  .strict();

export type TranscriptsSection = z.infer<typeof TranscriptsSectionSchema>;

export interface RetentionPolicy {
  readonly keepRuns: number;
  readonly keepDays: number;
}

export function retentionPolicy(section: TranscriptsSection | undefined): RetentionPolicy {
  return { keepRuns: section?.keep_runs ?? RETENTION_DEFAULTS.keep_runs, keepDays: section?.keep_days ?? RETENTION_DEFAULTS.keep_days };
}

export interface PrunedRun {
  readonly id: string;
  readonly robot: string;
  /** When it started (its start line), else when the file was last written. */
  readonly started: string;
  readonly bytes: number;
}

/** The start line only: transcripts with frames run to megabytes, and only their head is needed. */
function head(path: string): { robot?: string; started?: string } {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(8192);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const first = buf.subarray(0, n).toString('utf8').split('\n')[0] ?? '';
    const line = JSON.parse(first) as { type?: unknown; body?: unknown; t?: unknown };
    if (line.type !== 'start') return {};
    return { ...(typeof line.body === 'string' ? { robot: line.body } : {}), ...(typeof line.t === 'string' && !Number.isNaN(Date.parse(line.t)) ? { started: line.t } : {}) };
  } catch {
    // A torn or foreign first line: the file's own time stands in, under no robot.
    return {};
  } finally {
    closeSync(fd);
  }
}

/** The runs `policy` lets go, oldest first; with `apply`, deleted. */
export function pruneTranscripts(dir: string, policy: RetentionPolicy, options: { now?: Date; apply: boolean }): PrunedRun[] {
  const now = (options.now ?? new Date()).getTime();
  const since = now - policy.keepDays * 86_400_000;
  const seen = new Map<string, number>();
  const gone: PrunedRun[] = [];
  // Newest first, so the count per robot is of its newest runs.
  const ids = listTranscriptIds(dir);
  // No robot can have more runs than there are: none is read (quackd run prunes after every run).
  if (ids.length <= policy.keepRuns) return [];
  for (const id of ids) {
    const path = join(dir, `${id}.jsonl`);
    let st;
    try {
      st = statSync(path);
    } catch {
      continue; // removed by someone else meanwhile
    }
    const h = head(path);
    const robot = h.robot ?? '(unknown robot)';
    const rank = (seen.get(robot) ?? 0) + 1;
    seen.set(robot, rank);
    const started = h.started ?? new Date(st.mtimeMs).toISOString();
    if (rank <= policy.keepRuns || Date.parse(started) >= since) continue;
    gone.push({ id, robot, started, bytes: st.size });
  }
  gone.reverse();
  if (options.apply) {
    for (const run of gone) {
      rmSync(join(dir, `${run.id}.jsonl`), { force: true });
      // Its snapshots' folder, when it took any (src/run/run-snapshots.ts).
      rmSync(join(dir, run.id), { recursive: true, force: true });
    }
  }
  return gone;
}
