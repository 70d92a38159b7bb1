/**
 * The store guard: a cross-process mutex that every open and close of the LMDB environment and
 * every write transaction holds, in every quackd process and thread.
 *
 * Why: the LMDB that lmdb-js bundles writes the transaction id an opener read into the shared lock
 * file, without the writer lock (docs/lmdb-open-txnid-race.md). An open that overlaps another
 * process's commit puts an older id back, and the next writer silently overwrites the newer
 * commit. Holding one guard across opens, closes and commits means an open never overlaps a commit.
 *
 * The guard is a listening unix socket in Linux's abstract namespace, named after the memory
 * directory's device and inode and the user: binding it is atomic, a second bind fails at once,
 * and the kernel drops it the moment its holder exits or is killed, so there is no stale lock to
 * guess about. Binding is synchronous; waiting polls, asynchronously, so a wait never blocks the
 * event loop (the serial link's heartbeats, the control loop). Two threads of one process exclude
 * each other like two processes. Scope: processes sharing a network namespace (a host, a
 * container); README says so. quackd runs on Linux; elsewhere (a developer's Mac) the guard is
 * only a flag within one thread and excludes nothing across processes.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemoryBusy } from './errors.js';

/** The address of the guard of the memory directory `dir` (which must exist). */
export function guardAddress(dir: string): string {
  const st = statSync(dir);
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const id = createHash('sha256').update(`${uid}:${st.dev}:${st.ino}`).digest('hex').slice(0, 24);
  return process.platform === 'linux' ? `\0quackd-memory-${id}` : `quackd-memory-${id}`;
}

/** Outside Linux: the guards this process holds, by address. */
const localGuards = new Set<string>();

export class StoreGuard {
  private held: Server | undefined;

  constructor(private readonly address: string) {}

  /** Takes the guard if nobody holds it; never waits. */
  tryAcquire(): boolean {
    if (this.held !== undefined) throw new Error('the store guard is already held by this holder');
    if (!this.address.startsWith('\0')) return this.tryLocal();
    const server = createServer();
    // A refused bind is reported here (on the next tick); `listening` already says whether it took.
    server.on('error', () => undefined);
    server.listen({ path: this.address, exclusive: true });
    if (!server.listening) {
      server.close();
      return false;
    }
    // The guard must never keep a process alive.
    server.unref();
    this.held = server;
    return true;
  }

  /**
   * Waits for the guard, polling every few milliseconds (rising to 20 ms), until `waitMs` have
   * passed (MemoryBusy) or `abandoned()` says the caller has given up (MemoryBusy too).
   */
  async acquire(waitMs: number, abandoned: () => boolean = () => false): Promise<void> {
    const start = Date.now();
    for (let pause = 1; !this.tryAcquire(); pause = Math.min(pause * 2, 20)) {
      const waited = Date.now() - start;
      if (waited >= waitMs || abandoned()) throw new MemoryBusy(waited);
      await sleep(pause);
    }
  }

  private tryLocal(): boolean {
    if (localGuards.has(this.address)) return false;
    localGuards.add(this.address);
    this.held = createServer();
    return true;
  }

  release(): void {
    const server = this.held;
    this.held = undefined;
    if (server === undefined) return;
    if (!this.address.startsWith('\0')) localGuards.delete(this.address);
    // Closing the handle closes the socket at once; the callback only reports that it did.
    else server.close();
  }

  /** Runs `work` holding the guard, waiting for it up to `waitMs`. */
  async hold<T>(waitMs: number, work: () => T | Promise<T>): Promise<T> {
    await this.acquire(waitMs);
    try {
      return await work();
    } finally {
      this.release();
    }
  }
}
