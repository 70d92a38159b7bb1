/**
 * Writes a run's transcript: one JSON object per line, in the order events happen. Lines are
 * queued and written by libuv's threadpool, never by a synchronous write on the event loop:
 * the bridge's heartbeats share that loop, and a slow SD card must not make the firmware's
 * watchdog cut torque. Whatever is queued when the process exits (a second Ctrl-C, the stop
 * deadline) is written synchronously in the 'exit' hook, so a kill still leaves every line up
 * to that moment. Files are 0600; every line passes through redact() so no API key lands on disk.
 */
import { close, closeSync, openSync, readdirSync, write, writeSync } from 'node:fs';
import { join } from 'node:path';
import { RuntimeError } from '../errors.js';
import { ensurePrivateDir, unwritableReason } from '../config/paths.js';
import { redact } from '../secrets.js';
import type { TranscriptEvent } from './events.js';

const pad = (n: number): string => String(n).padStart(2, '0');

/** `20261130-012203-find-and-kick`, in local time: people read these names. */
/** A name runIdFor makes (`20261205-190840-gated`, `…-2` for a second run in that second). */
export const isRunId = (name: string): boolean => /^\d{8}-\d{6}-[A-Za-z0-9_-]*$/.test(name);

export function runIdFor(duck: string, at: Date = new Date()): string {
  const date = `${at.getFullYear()}${pad(at.getMonth() + 1)}${pad(at.getDate())}`;
  const time = `${pad(at.getHours())}${pad(at.getMinutes())}${pad(at.getSeconds())}`;
  return `${date}-${time}-${duck.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** One past the highest `-N` suffix a transcript of `baseId` already has in `dir` (at least 2). */
function nextSuffix(dir: string, baseId: string): number {
  let highest = 1;
  for (const name of readdirSync(dir)) {
    const m = name.startsWith(`${baseId}-`) && name.endsWith('.jsonl') ? /^(\d+)$/.exec(name.slice(baseId.length + 1, -6)) : null;
    if (m) highest = Math.max(highest, Number(m[1]));
  }
  return highest + 1;
}

/** Writers whose queue the 'exit' hook must still write out. */
const unfinished = new Set<TranscriptWriter>();
let exitHooked = false;

/**
 * Lines queued behind a write that is still in flight, with the event loop not turned since it
 * began: past this, the caller is not yielding (a simulator run with a scripted pilot is all
 * promise callbacks), no heartbeat timer can fire anyway, and the queue is written
 * synchronously, so a full disk still stops such a run within a few steps.
 */
const STARVED_LINES = 16;
/** A disk that has taken nothing for this long a queue is stuck: the run is stopped, not buffered without end. */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

interface Chunk {
  readonly bytes: Buffer;
  /** File offset: positional writes let a synchronous write go past a chunk in flight. */
  readonly at: number;
}

export class TranscriptWriter {
  private fd: number | undefined;
  private closing: Promise<void> | undefined;
  /** Where the next chunk goes. */
  private end = 0;
  /** Lines not yet handed to a write, and their size in UTF-16 units (near enough for a bound). */
  private queued: string[] = [];
  private queuedSize = 0;
  /** The chunk being written, if any: one at a time, so a slow disk holds one threadpool thread. */
  private inFlight: Chunk | undefined;
  /** Whether the event loop has turned since the write in flight began. */
  private turned = false;
  private drained: (() => void)[] = [];
  private failed: ((err: NodeJS.ErrnoException) => void)[] = [];
  /** Writes the writer made synchronously because its caller was not yielding (see STARVED_LINES). */
  syncWrites = 0;
  /** The first write that failed (disk full, …): nothing more is written after it. */
  failure: NodeJS.ErrnoException | undefined;

  private constructor(
    readonly runId: string,
    readonly path: string,
    fd: number,
  ) {
    this.fd = fd;
    unfinished.add(this);
    if (!exitHooked) {
      exitHooked = true;
      process.on('exit', () => {
        for (const w of unfinished) w.writeOutSync();
      });
    }
  }

  /** Opens a new transcript; a second run in the same second gets `-2`, `-3`, … */
  static create(dir: string, baseId: string): TranscriptWriter {
    // No transcript, no run: a run nobody can account for afterwards does not start.
    const cannot = (err: unknown): RuntimeError => {
      const code = (err as NodeJS.ErrnoException).code;
      // mkdir says EEXIST when a file stands where the directory should be.
      const why = code === 'EEXIST' || code === 'ENOTDIR' ? 'not a directory' : (unwritableReason(dir) ?? code ?? String(err));
      return new RuntimeError(`cannot write transcripts in ${dir} (${why})`, 'check that QUACKD_HOME is a directory you can write');
    };
    // Synchronous, once, before the run's body opens: the caller learns at once whether there is a transcript.
    try {
      ensurePrivateDir(dir);
    } catch (err) {
      throw cannot(err);
    }
    // The suffix after a collision starts past the highest one present: a fast simulator runs
    // over a hundred ducks in one second, and counting up from 2 each time would be quadratic.
    for (let n = 1, tries = 0; ; n = n === 1 ? nextSuffix(dir, baseId) : n + 1, tries++) {
      const runId = n === 1 ? baseId : `${baseId}-${n}`;
      const path = join(dir, `${runId}.jsonl`);
      try {
        return new TranscriptWriter(runId, path, openSync(path, 'wx', 0o600));
      } catch (err) {
        // More collisions than this means something else keeps writing these names.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || tries > 100) throw cannot(err);
      }
    }
  }

  /**
   * Queues one event; false once a write has failed (see `failure`) or the writer is closing.
   * A failure shows from the first call after the write that failed returned. Never throws.
   */
  write(event: TranscriptEvent): boolean {
    if (this.fd === undefined || this.closing !== undefined || this.failure !== undefined) return false;
    // Serialized now: the event may change after this call, and a secret registered later must not matter.
    const line = `${redact(JSON.stringify({ t: new Date().toISOString(), run: this.runId, ...event }))}\n`;
    this.queued.push(line);
    this.queuedSize += line.length;
    if (this.inFlight === undefined) this.next();
    else if (!this.turned && this.queued.length >= STARVED_LINES) this.writeQueuedSync(this.fd);
    else if (this.queuedSize > MAX_QUEUED_BYTES) this.fail(new Error(`the disk has taken no line for ${MAX_QUEUED_BYTES >> 20} MiB of transcript`));
    return this.failure === undefined;
  }

  /** Resolves once every line queued so far is written, or a write has failed. Never rejects. */
  flush(): Promise<void> {
    if (this.inFlight === undefined && this.queued.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  /** Writes what is queued, then closes the file. Idempotent; never rejects. */
  close(): Promise<void> {
    this.closing ??= this.flush().then(
      () =>
        new Promise<void>((resolve) => {
          const fd = this.fd;
          this.fd = undefined;
          unfinished.delete(this);
          if (fd === undefined) return resolve();
          // a close that fails (full disk, gone device) has nothing left to lose
          close(fd, () => resolve());
        }),
    );
    return this.closing;
  }

  private take(): Chunk {
    const chunk = { bytes: Buffer.from(this.queued.join('')), at: this.end };
    this.end += chunk.bytes.length;
    this.queued = [];
    this.queuedSize = 0;
    return chunk;
  }

  /** Everything queued goes into one write; lines queued meanwhile wait for the next one. */
  private next(): void {
    if (this.fd === undefined || this.failure !== undefined || this.queued.length === 0) {
      this.queued = [];
      this.queuedSize = 0;
      if (this.inFlight === undefined) for (const resolve of this.drained.splice(0)) resolve();
      return;
    }
    const chunk = this.take();
    this.inFlight = chunk;
    this.turned = false;
    setImmediate(() => (this.turned = true));
    this.writeFrom(this.fd, chunk, 0);
  }

  private writeFrom(fd: number, chunk: Chunk, done: number): void {
    write(fd, chunk.bytes, done, chunk.bytes.length - done, chunk.at + done, (err, n) => {
      if (err === null && n === 0) err = new Error('the disk took no bytes');
      if (err !== null) {
        this.inFlight = undefined;
        this.fail(err);
      } else if (done + n < chunk.bytes.length) {
        this.writeFrom(fd, chunk, done + n);
      } else {
        this.inFlight = undefined;
        this.next();
      }
    });
  }

  /**
   * Calls `listener` once, the moment a write fails (at once if one already has): a run waiting on
   * its model for a minute learns then, not at its next event, that nothing more is recorded.
   */
  onFailure(listener: (err: NodeJS.ErrnoException) => void): void {
    if (this.failure !== undefined) listener(this.failure);
    else this.failed.push(listener);
  }

  private fail(err: NodeJS.ErrnoException): void {
    const first = this.failure === undefined;
    this.failure ??= err;
    this.next();
    if (first) for (const listener of this.failed.splice(0)) listener(err);
  }

  private writeQueuedSync(fd: number): void {
    this.syncWrites += 1;
    try {
      writeAllSync(fd, this.take());
    } catch (err) {
      this.fail(err as NodeJS.ErrnoException);
    }
  }

  /**
   * The 'exit' hook: the chunk in flight (again, at its own offset, so bytes that already landed
   * are only rewritten) and the queue, synchronously, since no callback runs after 'exit'.
   */
  private writeOutSync(): void {
    const fd = this.fd;
    if (fd === undefined || this.failure !== undefined) return;
    try {
      if (this.inFlight !== undefined) writeAllSync(fd, this.inFlight);
      writeAllSync(fd, this.take());
      closeSync(fd);
    } catch {
      // the process is ending; a disk that refuses now has no one left to tell
    }
  }
}

function writeAllSync(fd: number, chunk: Chunk): void {
  for (let done = 0; done < chunk.bytes.length; ) {
    const n = writeSync(fd, chunk.bytes, done, chunk.bytes.length - done, chunk.at + done);
    if (n === 0) throw new Error('the disk took no bytes');
    done += n;
  }
}
