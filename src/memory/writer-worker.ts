/**
 * The writer worker: every write to the memory store runs here, off the main thread, so waiting
 * for another process's transaction (a large import held one for 15 s) never freezes the process
 * that keeps a serial link's heartbeats and a control loop going. One worker per process serves
 * every store the process opens (a fleet's, or a test file's). Jobs run one at a time, each
 * holding its store's guard for its transaction; while a guard is taken elsewhere the worker
 * polls it until the caller abandons the job (src/memory/writer.ts bounds the wait).
 */
import { parentPort } from 'node:worker_threads';
import { MemoryRefusal } from './entry.js';
import { MemoryBusy } from './errors.js';
import { StoreGuard, guardAddress } from './guard.js';
import { openLmdbStore, type LmdbStore } from './lmdb-store.js';
import { JOB_ABANDONED, JOB_APPLYING, JOB_PENDING, runJob, type JobReply, type WriteJob } from './writer-jobs.js';

export type WriterRequest =
  | { readonly type: 'open'; readonly id: number; readonly dir: string; readonly waitMs: number }
  | { readonly type: 'job'; readonly id: number; readonly dir: string; readonly job: WriteJob; readonly now: string; readonly state: SharedArrayBuffer }
  | { readonly type: 'close'; readonly id: number; readonly dir: string; readonly waitMs: number };

/** A job the caller abandoned before the worker began it: it unwinds the transaction. */
class Abandoned extends Error {}

interface Opened {
  readonly store: LmdbStore;
  readonly guard: StoreGuard;
  readonly clock: { now: Date };
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

function failure(id: number, err: unknown, state?: Int32Array): JobReply {
  if (err instanceof Abandoned || (state !== undefined && Atomics.load(state, 0) === JOB_ABANDONED)) return { id, ok: false, error: { kind: 'busy', message: 'abandoned' } };
  if (err instanceof MemoryRefusal) return { id, ok: false, error: { kind: 'refusal', message: err.message, code: err.code } };
  if (err instanceof MemoryBusy) return { id, ok: false, error: { kind: 'busy', message: err.message, waitedMs: err.waitedMs } };
  return { id, ok: false, error: { kind: 'store', message: errorText(err) } };
}

const opened = new Map<string, Opened>();

/** Opens the store in `dir` once: the main thread counts its handles and asks again only after a close. */
async function open(dir: string, waitMs: number): Promise<void> {
  if (opened.has(dir)) return;
  const guard = new StoreGuard(guardAddress(dir));
  const clock = { now: new Date() };
  const store = await guard.hold(waitMs, () => openLmdbStore(dir, { now: () => clock.now }));
  opened.set(dir, { store, guard, clock });
}

async function close(dir: string, waitMs: number): Promise<void> {
  const o = opened.get(dir);
  if (o === undefined) return;
  opened.delete(dir);
  await o.guard.hold(waitMs, () => o.store.close());
}

async function job(req: Extract<WriterRequest, { type: 'job' }>): Promise<JobReply> {
  const state = new Int32Array(req.state);
  const o = opened.get(req.dir);
  if (o === undefined) return failure(req.id, new Error('the memory store is closed'));
  try {
    await o.guard.acquire(Number.POSITIVE_INFINITY, () => Atomics.load(state, 0) === JOB_ABANDONED);
  } catch (err) {
    return failure(req.id, err, state);
  }
  try {
    o.clock.now = new Date(req.now);
    const value = o.store.write(() => {
      // From here the job commits or fails: the caller's "memory busy" can no longer be true.
      if (Atomics.compareExchange(state, 0, JOB_PENDING, JOB_APPLYING) !== JOB_PENDING) throw new Abandoned();
      return runJob(o.store, req.job, req.now);
    });
    return { id: req.id, ok: true, value };
  } catch (err) {
    return failure(req.id, err, state);
  } finally {
    o.guard.release();
  }
}

async function handle(req: WriterRequest): Promise<JobReply> {
  if (req.type === 'job') return job(req);
  try {
    await (req.type === 'open' ? open(req.dir, req.waitMs) : close(req.dir, req.waitMs));
    return { id: req.id, ok: true, value: undefined };
  } catch (err) {
    return failure(req.id, err);
  }
}

const port = parentPort;
if (port === null) throw new Error('writer-worker runs only as a worker thread');
let queue = Promise.resolve();
port.on('message', (req: WriterRequest) => {
  queue = queue.then(async () => port.postMessage(await handle(req)));
});
