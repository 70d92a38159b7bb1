/**
 * A store's writes on the thread that opened it, for a one-shot command (a CLI run, `quackd do`,
 * `memory add`): its thread has nothing else to keep going (a run's body is driven by its control
 * worker, which also carries the serial link's heartbeats), so it need not pay the writer worker's
 * start (a second copy of zod and lmdb, about a third of a second here) before its first step.
 * The rules are the worker's: one job at a time, each in one transaction holding the store guard,
 * waiting for the guard asynchronously and at most `waitMs` (MemoryBusy), so a wait never blocks
 * the event loop; only the transaction itself (a commit flushed to disk) runs on this thread.
 */
import { StoreError } from './errors.js';
import { StoreGuard, guardAddress } from './guard.js';
import type { LmdbStore } from './lmdb-store.js';
import { runJob, type JobResults, type StoreWriter, type WriteJob } from './writer-jobs.js';

export class InlineWriter implements StoreWriter {
  private readonly guard: StoreGuard;
  /** The jobs in order: a later write waits for the one before, as in the worker. */
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly engine: LmdbStore) {
    this.guard = new StoreGuard(guardAddress(engine.dir));
  }

  run<K extends WriteJob['kind']>(job: Extract<WriteJob, { kind: K }>, now: Date, waitMs: number): Promise<JobResults[K]> {
    if (this.closed) return Promise.reject(new StoreError('the memory store is closed'));
    const asked = Date.now();
    const result = this.queue.then(async () => {
      // The bound counts from the ask, as the worker's does: time spent behind this process's own jobs is waiting too.
      await this.guard.acquire(Math.max(0, waitMs - (Date.now() - asked)));
      try {
        return this.engine.write(() => runJob(this.engine, job, now.toISOString())) as JobResults[K];
      } finally {
        this.guard.release();
      }
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Waits for the queued jobs; the engine is the store's to close. */
  async close(): Promise<void> {
    this.closed = true;
    await this.queue;
  }
}
