/**
 * One-time import of the legacy per-body files, `<memory dir>/<adapter>-<backend>.jsonl`, which
 * earlier quackd versions appended to. On a writable open each one is imported into its body
 * and renamed to `….jsonl.imported`. A meta marker written in the same transaction as the
 * entries makes it import exactly once, even if the process dies before the rename or two
 * processes open the store at the same moment.
 */
import { readFileSync, readdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { BodyKey } from '../bodies/body.js';
import { listBodies } from '../bodies/index.js';
import { isBodyKey } from './entry.js';
import { importLines } from './import.js';
import { parseJsonl, skippedWarning } from './jsonl.js';
import type { LmdbStore } from './lmdb-store.js';

export const IMPORTED_SUFFIX = '.imported';

/** The body a legacy file belongs to, from its name (`microduck-sim2d.jsonl`). */
export function legacyBody(file: string): BodyKey | undefined {
  if (!file.endsWith('.jsonl')) return undefined;
  const stem = file.slice(0, -'.jsonl'.length);
  // Adapter names may hold a hyphen (reachy-mini), so known bodies are matched first.
  const known = listBodies().find((b) => b.key.replace(':', '-') === stem);
  if (known !== undefined) return known.key;
  const parts = stem.split('-');
  if (parts.length !== 2) return undefined;
  const key = `${parts[0]}:${parts[1]}`;
  return isBodyKey(key) ? key : undefined;
}

export function pendingLegacyFiles(dir: string): { file: string; body: BodyKey }[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((file) => {
    const body = legacyBody(file);
    return body !== undefined ? [{ file, body }] : [];
  });
}

/** Imports every pending legacy file; returns one warning line per file that had bad lines. */
export function importLegacy(store: LmdbStore): string[] {
  const warnings: string[] = [];
  for (const { file, body } of pendingLegacyFiles(store.dir)) {
    const path = join(store.dir, file);
    let text: string;
    let marker: string;
    try {
      const st = statSync(path);
      marker = `legacy:${file}:${st.size}:${Math.round(st.mtimeMs)}`;
      text = readFileSync(path, 'utf8');
    } catch {
      continue; // another process imported and renamed it a moment ago
    }
    const memory = store.body(body);
    memory.batch(() => {
      // Checked and set inside the transaction, with the entries: they commit together or not at all.
      if (store.metaGet(marker) !== undefined) return;
      const result = importLines(memory, parseJsonl(text), 'human');
      store.metaPut(marker, { body, at: new Date().toISOString(), added: result.added });
      const w = skippedWarning(file, result.skipped, result.added + result.refreshed + result.superseded);
      if (w !== undefined) warnings.push(w);
    });
    try {
      renameSync(path, `${path}${IMPORTED_SUFFIX}`);
    } catch {
      // Renamed by another process, or the directory is read-only: the marker keeps it imported once.
    }
  }
  return warnings;
}
