/**
 * `store`: the memory store opens (read-only: looking changes nothing on disk), a run could open
 * it to write (checked as its open checks, writing nothing), and how much the robot's body
 * remembers. A damaged file is refused before LMDB maps it (the same pre-open check every open
 * makes, src/memory/header-check.ts), so it fails here in one line instead of crashing.
 */
import { join } from 'node:path';
import type { BodyKey } from '../bodies/body.js';
import { writeAccessProblem } from '../memory/header-check.js';
import { pendingLegacyFiles } from '../memory/legacy.js';
import { DATA_FILE, MemoryBusy, StoreError, openMemoryStore, storeExists, type MemoryStore } from '../memory/store.js';
import { plural } from '../text/plural.js';
import { fail, ok, warn, type HealthCheck, type HealthReport } from './check.js';

/** Well inside the runner's deadline: a store held that long by a write is busy, not hung. */
const OPEN_WAIT_MS = 5_000;

const firstLine = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

function counts(store: MemoryStore, body: BodyKey | undefined): string {
  const entries = body !== undefined ? store.body(body).entries() : store.bodies().flatMap((b) => store.body(b).entries());
  const notes = entries.filter((e) => e.kind === 'note').length;
  return `${plural(notes, 'note')}, ${plural(entries.length - notes, 'episode')} ${body !== undefined ? `for ${body}` : 'in all'}`;
}

/** A run opens the store to write; one it cannot turns its memory off, so looking read-only is not enough. */
const runsCannotWrite = (dir: string): string | undefined => {
  const problem = writeAccessProblem(join(dir, DATA_FILE));
  return problem !== undefined ? `runs cannot write it, so every run has memory off: ${problem}` : undefined;
};

async function look(dir: string, body: BodyKey | undefined): Promise<HealthReport> {
  const legacy = pendingLegacyFiles(dir).length;
  const waiting = legacy > 0 ? ` · ${plural(legacy, 'legacy file')} to import at the next open` : '';
  if (!storeExists(dir)) {
    const unwritable = runsCannotWrite(dir);
    return unwritable !== undefined ? warn(`none yet in ${dir}, and ${unwritable}`) : ok(`none yet in ${dir}: the first run creates it${waiting}`);
  }
  let store: MemoryStore;
  try {
    store = await openMemoryStore(dir, { readOnly: true, openWaitMs: OPEN_WAIT_MS });
  } catch (err) {
    // Busy is not damage: a run or an import holds the store for a moment.
    if (err instanceof MemoryBusy) return warn(`memory store in ${dir}: ${firstLine(err)}`);
    if (err instanceof StoreError) return fail(`memory store in ${dir}: ${firstLine(err)}`);
    throw err;
  }
  try {
    const unwritable = runsCannotWrite(dir);
    if (unwritable !== undefined) return warn(`${counts(store, body)} · ${unwritable}`);
    const damaged = store.invalid().length;
    // Runs skip entries that fail their schema; doctor says which.
    if (damaged > 0) return warn(`${counts(store, body)} · ${plural(damaged, 'damaged entry', 'damaged entries')} skipped (quackd memory doctor) · ${dir}`);
    return ok(`${counts(store, body)} · ${dir}${waiting}`);
  } finally {
    await store.close();
  }
}

export const storeCheck: HealthCheck = {
  name: 'store',
  run({ memoryDir, setup }) {
    if (memoryDir === undefined) return Promise.resolve(ok('memory is off: runs neither recall nor remember'));
    const e = setup.ok ? setup.config.config.memory?.embeddings : undefined;
    // Recall by meaning is named, not probed: a server that is down costs a run nothing (words answer).
    const checked = look(memoryDir, setup.ok ? setup.robot.key : undefined);
    return e === undefined ? checked : checked.then((r) => ({ ...r, detail: `${r.detail} · recall by meaning: ${e.model} at ${e.base_url}` }));
  },
};
