/**
 * The main thread's side of the writer worker (src/memory/writer-worker.ts): one worker per
 * process, started with the first store opened for writing and let go when idle (idleMs). A request waits for its answer
 * without blocking the event loop, and a write's wait is bounded: when the bound passes while the
 * job still waits for the store guard, the job is abandoned and the caller gets MemoryBusy, and
 * the worker will not write it afterwards. A job already in its transaction is waited for, since
 * it will commit or fail within the transaction's own time.
 */
import type { Worker } from 'node:worker_threads';
import { siblingModule, spawnWorker } from '../worker-thread.js';
import { MemoryRefusal } from './entry.js';
import { MemoryBusy, StoreError } from './errors.js';
import { JOB_ABANDONED, JOB_PENDING, type JobReply, type JobResults, type StoreWriter, type WriteJob } from './writer-jobs.js';
import type { WriterRequest } from './writer-worker.js';

type Request = WriterRequest extends infer R ? (R extends WriterRequest ? Omit<R, 'id'> : never) : never;

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

const stripLine = (err: Error) => err.message.split('\n')[0] ?? '';

/**
 * A writer with nothing to do for this long lets its worker go (about 20 MB of a service's
 * memory), after closing its stores; the next write starts one again and reopens them first.
 * Writes come a few times a run (notes, the episode), so the restart (~50 ms) is rarely paid.
 */
let idleMs = 30_000;

/** How long an idle writer keeps its worker (tests shorten it). */
export function setWriterIdleMs(ms: number): void {
  idleMs = ms;
}

const spawnWriter = (): Worker => spawnWorker(siblingModule(import.meta.url, 'writer-worker'));

class WriterThread {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private stopped: Error | undefined;
  private worker: Worker | undefined;
  /** How many handles the main thread holds on each store; the worker has each open once. */
  private readonly users = new Map<string, number>();
  /** The worker being let go and its stores closed; a request waits for it, then starts another. */
  private retiring: Promise<void> | undefined;
  private idle: NodeJS.Timeout | undefined;
  /** Spawns (and resumes the stores of) each worker; a test passes its own. */
  constructor(private readonly spawn: () => Worker = spawnWriter) {}

  get alive(): boolean {
    return this.stopped === undefined;
  }

  /** Why the worker stopped for good (it failed or exited on its own), or undefined. */
  get failure(): string | undefined {
    return this.stopped?.message;
  }

  /** Is a worker running now (for tests and the bench). */
  get working(): boolean {
    return this.worker !== undefined;
  }

  async open(dir: string, waitMs: number): Promise<void> {
    const n = this.users.get(dir) ?? 0;
    this.users.set(dir, n + 1);
    if (n > 0) return;
    try {
      await this.request({ type: 'open', dir, waitMs });
    } catch (err) {
      const left = (this.users.get(dir) ?? 1) - 1;
      if (left > 0) this.users.set(dir, left);
      else this.users.delete(dir);
      throw err;
    }
  }

  async close(dir: string, waitMs: number): Promise<void> {
    const n = this.users.get(dir) ?? 0;
    if (n > 1) return void this.users.set(dir, n - 1);
    this.users.delete(dir);
    if (n === 1 && this.worker !== undefined) await this.request({ type: 'close', dir, waitMs });
  }

  async request<T>(req: Request, onTimeout?: { readonly ms: number; readonly state: Int32Array }): Promise<T> {
    clearTimeout(this.idle);
    await this.retiring;
    if (this.stopped !== undefined) throw this.stopped;
    if (this.worker === undefined) await this.start(req.type === 'close' ? 0 : 'waitMs' in req ? req.waitMs : (onTimeout?.ms ?? 0));
    return this.post<T>(req, onTimeout);
  }

  /**
   * A new worker, with every store the main thread still holds opened in it again. The opens are
   * all posted at once, before any request can post: the worker takes messages in order, so no
   * job reaches it ahead of its store's open.
   */
  private start(waitMs: number): Promise<unknown> {
    const worker = this.spawn();
    this.worker = worker;
    worker.on('message', (msg: JobReply) => this.settle(msg));
    worker.on('error', (err) => this.fail(new StoreError(`the memory writer failed: ${stripLine(err)}`)));
    worker.on('exit', () => this.worker === worker && this.fail(new StoreError('the memory writer stopped')));
    // An idle writer never keeps the process alive; one with work in flight does.
    worker.unref();
    return Promise.all([...this.users.keys()].map((dir) => this.post({ type: 'open', dir, waitMs })));
  }

  private post<T>(req: Request, onTimeout?: { readonly ms: number; readonly state: Int32Array }): Promise<T> {
    const worker = this.worker;
    if (worker === undefined) return Promise.reject(this.stopped ?? new StoreError('the memory writer stopped'));
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
      worker.ref();
      worker.postMessage({ ...req, id });
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
    if (this.pending.size === 0) {
      this.worker?.unref();
      this.armIdle();
    }
    return p;
  }

  private armIdle(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => void this.retire(), idleMs);
    this.idle.unref();
  }

  /** Closes the worker's stores (each under its guard) and lets the worker go. */
  private retire(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined || this.pending.size > 0 || this.retiring !== undefined) return Promise.resolve();
    this.retiring = (async () => {
      try {
        for (const dir of this.users.keys()) await this.post({ type: 'close', dir, waitMs: idleMs }).catch(() => undefined);
      } finally {
        this.worker = undefined;
        await worker.terminate();
        this.retiring = undefined;
      }
    })();
    return this.retiring;
  }

  private fail(err: Error): void {
    this.stopped ??= err;
    this.worker = undefined;
    for (const id of [...this.pending.keys()]) this.take(id)?.reject(err);
  }
}

let thread: WriterThread | undefined;

function writerThread(): WriterThread {
  if (thread === undefined || !thread.alive) thread = new WriterThread();
  return thread;
}

/** Whether the process's writer has a worker running now. */
export const writerWorking = (): boolean => thread?.working === true;

/** One store's writes, through the process's writer worker. */
export class MemoryWriter implements StoreWriter {
  private closed = false;

  private constructor(
    private readonly dir: string,
    private readonly thread: WriterThread,
  ) {}

  /** Has the worker open the store in `dir` (holding the guard to do so). */
  static async open(dir: string, waitMs: number): Promise<MemoryWriter> {
    const t = writerThread();
    await t.open(dir, waitMs);
    return new MemoryWriter(dir, t);
  }

  /** Why this store's writes can no longer be done (its writer thread died), or undefined. */
  get failure(): string | undefined {
    return this.thread.failure;
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
    await this.thread.close(this.dir, waitMs).catch(() => undefined);
  }
}
