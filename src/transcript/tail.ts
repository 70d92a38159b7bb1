/**
 * A file read as it grows: each read returns the whole lines written since the last one, never
 * the bytes read before (a followed transcript runs to megabytes). A line the writer is half-way
 * through waits, as bytes, for its newline: a character split across two reads stays whole.
 */
import { closeSync, openSync, readSync } from 'node:fs';

/** At most this much per read: a long transcript caught up on in steps, never all in memory at once. */
const CHUNK = 1 << 20;

export class FileTail {
  private offset = 0;
  private partial: Buffer = Buffer.alloc(0);
  private readonly buf = Buffer.alloc(CHUNK);

  private constructor(private readonly fd: number) {}

  /** Throws as openSync does (ENOENT when the file is gone). */
  static open(path: string): FileTail {
    return new FileTail(openSync(path, 'r'));
  }

  /** The whole lines that came since the last read, and how many bytes came (0: nothing new). */
  read(): { lines: string[]; bytes: number } {
    const n = readSync(this.fd, this.buf, 0, CHUNK, this.offset);
    if (n === 0) return { lines: [], bytes: 0 };
    this.offset += n;
    const data = Buffer.concat([this.partial, this.buf.subarray(0, n)]);
    const last = data.lastIndexOf(0x0a);
    // copy: `buf` is reused by the next read.
    this.partial = Buffer.from(data.subarray(last + 1));
    return { lines: last < 0 ? [] : data.subarray(0, last).toString('utf8').split('\n'), bytes: n };
  }

  close(): void {
    closeSync(this.fd);
  }
}
