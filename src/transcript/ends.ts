/**
 * A transcript's two ends without reading its middle: the start line is the file's first, the end
 * line its last (the writer appends nothing after it). A run with frames writes megabytes, and
 * `transcript list`, retention and the recordings' robots need only these two lines of each run.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { TranscriptLine } from './events.js';
import { transcriptRecord } from './record.js';

const CHUNK = 16_384;

export interface TranscriptEnds {
  /** The first line, when it is a start record. */
  readonly start?: Extract<TranscriptLine, { type: 'start' }>;
  /** The last record, when it is an end record: a run without one never ended (or is still going). */
  readonly end?: Extract<TranscriptLine, { type: 'end' }>;
  readonly bytes: number;
}

function firstLine(fd: number, size: number): string {
  let text = '';
  for (let at = 0; at < size; at += CHUNK) {
    const buf = Buffer.alloc(Math.min(CHUNK, size - at));
    const n = readSync(fd, buf, 0, buf.length, at);
    const chunk = buf.subarray(0, n).toString('latin1');
    const nl = chunk.indexOf('\n');
    if (nl >= 0) return Buffer.from(text + chunk.slice(0, nl), 'latin1').toString('utf8');
    text += chunk;
    if (n === 0) break;
  }
  return Buffer.from(text, 'latin1').toString('utf8');
}

/**
 * The last record, read backwards a chunk at a time; whole lines only (a torn last write is
 * skipped, as the reader skips it). Latin-1 keeps one byte one character, so a chunk boundary
 * never splits a character before the line is decoded whole.
 */
function lastRecord(fd: number, size: number): TranscriptLine | undefined {
  let tail = '';
  for (let at = size; at > 0; ) {
    const from = Math.max(0, at - CHUNK);
    const buf = Buffer.alloc(at - from);
    readSync(fd, buf, 0, buf.length, from);
    tail = buf.toString('latin1') + tail;
    at = from;
    const lines = tail.split('\n');
    // The first piece may be the tail of a longer line, unless the file's start was reached.
    const whole = at === 0 ? lines : lines.slice(1);
    for (let i = whole.length - 1; i >= 0; i -= 1) {
      const raw = whole[i] ?? '';
      if (raw.trim() === '') continue;
      const record = transcriptRecord(Buffer.from(raw, 'latin1').toString('utf8'));
      if (record !== undefined) return record;
    }
    // Keep only the unfinished first piece: the whole lines after it were not records.
    tail = at === 0 ? '' : (lines[0] ?? '');
  }
  return undefined;
}

export function transcriptEnds(path: string): TranscriptEnds {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const first = transcriptRecord(firstLine(fd, size));
    const last = lastRecord(fd, size);
    return { ...(first?.type === 'start' ? { start: first } : {}), ...(last?.type === 'end' ? { end: last } : {}), bytes: size };
  } finally {
    closeSync(fd);
  }
}
