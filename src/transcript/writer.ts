/**
 * Writes a run's transcript: one JSON object per line, appended and flushed as each event
 * happens, so a crash or a kill leaves every line up to that moment. Files are 0600; every line
 * passes through redact() so no API key lands on disk.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { RuntimeError } from '../cli/errors.js';
import { ensurePrivateDir } from '../config/paths.js';
import { redact } from '../secrets.js';
import type { TranscriptEvent } from './events.js';

const pad = (n: number): string => String(n).padStart(2, '0');

/** `20261130-012203-find-and-kick`, in local time: people read these names. */
export function runIdFor(duck: string, at: Date = new Date()): string {
  const date = `${at.getFullYear()}${pad(at.getMonth() + 1)}${pad(at.getDate())}`;
  const time = `${pad(at.getHours())}${pad(at.getMinutes())}${pad(at.getSeconds())}`;
  return `${date}-${time}-${duck.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

export class TranscriptWriter {
  private fd: number | undefined;
  /** The first write that failed (disk full, …): nothing more is written after it. */
  failure: NodeJS.ErrnoException | undefined;

  private constructor(
    readonly runId: string,
    readonly path: string,
    fd: number,
  ) {
    this.fd = fd;
  }

  /** Opens a new transcript; a second run in the same second gets `-2`, `-3`, … */
  static create(dir: string, baseId: string): TranscriptWriter {
    // No transcript, no run: a run nobody can account for afterwards does not start.
    const cannot = (err: unknown): RuntimeError => {
      const code = (err as NodeJS.ErrnoException).code;
      // mkdir says EEXIST when a file stands where the directory should be.
      const why = code === 'EEXIST' || code === 'ENOTDIR' ? 'not a directory' : (code ?? String(err));
      return new RuntimeError(`cannot write transcripts in ${dir} (${why})`, 'check that QUACKD_HOME is a directory you can write');
    };
    try {
      ensurePrivateDir(dir);
    } catch (err) {
      throw cannot(err);
    }
    for (let n = 1; ; n++) {
      const runId = n === 1 ? baseId : `${baseId}-${n}`;
      const path = join(dir, `${runId}.jsonl`);
      try {
        return new TranscriptWriter(runId, path, openSync(path, 'wx', 0o600));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || n > 100) throw cannot(err);
      }
    }
  }

  /** Appends one event; false once a write has failed (see `failure`). Never throws. */
  write(event: TranscriptEvent): boolean {
    if (this.fd === undefined || this.failure !== undefined) return false;
    const line = JSON.stringify({ t: new Date().toISOString(), run: this.runId, ...event });
    try {
      writeSync(this.fd, `${redact(line)}\n`);
      return true;
    } catch (err) {
      this.failure = err as NodeJS.ErrnoException;
      return false;
    }
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // a close that fails (full disk, gone device) has nothing left to lose
    }
    this.fd = undefined;
  }
}
