/**
 * The main thread's side of the writer worker (src/memory/writer-worker.ts): one worker per
 * process, started with the first store opened for writing. A request waits for its answer
 * without blocking the event loop, and a write's wait is bounded: when the bound passes while the
 * job still waits for the store guard, the job is abandoned and the caller gets MemoryBusy, and
 * the worker will not write it afterwards. A job already in its transaction is waited for, since
 * it will commit or fail within the transaction's own time.
 */
import type { Worker } from 'node:worker_threads';
import { siblingModule, spawnWorker } from '../worker-thread.js';
import { MemoryRefusal } from './entry.js';
import { MemoryBusy, StoreError } from './errors.js';
import { JOB_ABANDONED, JOB_PENDING, type JobReply, type JobResults, type WriteJob } from './writer-jobs.js';
import type { WriterRequest } from './writer-worker.js';

type Request = WriterRequest extends infer R ? (R extends WriterRequest ? Omit<R, 'id'> : never) : never;

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

const stripLine = (err: Error) => err.message.split('\n')[0] ?? '';

class WriterThread {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private stopped: Error | undefined;

  constructor(private readonly worker: Worker = spawnWorker(siblingModule(import.meta.url, 'writer-worker'))) {
    worker.on('message', (msg: JobReply) => this.settle(msg));
    worker.on('error', (err) => this.fail(new StoreError(`the memory writer failed: ${stripLine(err)}`)));
    worker.on('exit', () => this.fail(new StoreError('the memory writer stopped')));
    // An idle writer never keeps the process alive; one with work in flight does.
    worker.unref();
  }

  get alive(): boolean {
    return this.stopped === undefined;
  }

  request<T>(req: Request, onTimeout?: { readonly ms: number; readonly state: Int32Array }): Promise<T> {
    if (this.stopped !== undefined) return Promise.reject(this.stopped);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const started = Date.now();
      const timer =
        onTimeout !== undefined
          ? setTimeout(() => {
              // Abandon only a job that has not begun; one that has will answer soon.
              if (Atomics.compareExchange(onTimeout.state, 0, JOB_PENDING, JOB_ABANDONED) === JOB_PENDING) this.take(id)?.reject(new MemoryBusy(Date.now() - started));
            }, onTimeout.ms)
          : undefined;
      this.pending.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v as T)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.worker.ref();
      this.worker.postMessage({ ...req, id });
    });
  }

  private settle(msg: JobReply): void {
    const p = this.take(msg.id);
    if (msg.ok) return p?.resolve(msg.value);
    const { kind, message, code, waitedMs } = msg.error;
    p?.reject(kind === 'refusal' ? new MemoryRefusal(message, code as MemoryRefusal['code']) : kind === 'busy' ? new MemoryBusy(waitedMs ?? 0) : new StoreError(message));
  }

  private take(id: number): Pending | undefined {
    const p = this.pending.get(id);
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
    return p;
  }

  private fail(err: Error): void {
    this.stopped ??= err;
    for (const id of [...this.pending.keys()]) this.take(id)?.reject(err);
  }
}

let thread: WriterThread | undefined;

function writerThread(): WriterThread {
  if (thread === undefined || !thread.alive) thread = new WriterThread();
  return thread;
}

/** One store's writes, through the process's writer worker. */
export class MemoryWriter {
  private closed = false;

  private constructor(
    private readonly dir: string,
    private readonly thread: WriterThread,
  ) {}

  /** Has the worker open the store in `dir` (holding the guard to do so). */
  static async open(dir: string, waitMs: number): Promise<MemoryWriter> {
    const t = writerThread();
    await t.request({ type: 'open', dir, waitMs });
    return new MemoryWriter(dir, t);
  }

  /** Runs `job`; MemoryBusy when the store's guard was not had within `waitMs`. */
  run<K extends WriteJob['kind']>(job: Extract<WriteJob, { kind: K }>, now: Date, waitMs: number): Promise<JobResults[K]> {
    if (this.closed) return Promise.reject(new StoreError('the memory store is closed'));
    const state = new SharedArrayBuffer(4);
    return this.thread.request<JobResults[K]>({ type: 'job', dir: this.dir, job, now: now.toISOString(), state }, { ms: waitMs, state: new Int32Array(state) });
  }

  /** The worker finishes this store's queued jobs, then lets go of it (guarded). */
  async close(waitMs: number): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.thread.request({ type: 'close', dir: this.dir, waitMs }).catch(() => undefined);
  }
}
