/**
 * One run's transcript for a reader that takes it whole in one answer (an MCP client's resource
 * read, through the service): at most EXCERPT_BYTES of its lines, its beginning and its end, and
 * how many lines between them were left out. A run with frames writes tens of megabytes, and read
 * whole into one answer it took the service's main thread seconds and many times its size in
 * memory; a client's model could not take it either. Read as a stream, so memory stays at the
 * excerpt's size whatever the file's. `quackd transcript show` has every line.
 */
import type { TranscriptLine } from './events.js';
import { streamTranscript } from './reader.js';

/**
 * What one answer holds of a transcript: about 200k tokens, far more than a run without frames
 * writes, and with the answer's wrapping still one line of the service's socket (1 MiB).
 */
export const EXCERPT_BYTES = 900_000;

export interface TranscriptExcerpt {
  readonly lines: readonly TranscriptLine[];
  /** Lines left out, after the first `at` lines of `lines`; absent when none were. */
  readonly gap?: { readonly at: number; readonly lines: number };
}

/** The first lines up to half of `maxBytes`, then the last lines up to the rest (bytes as written, one record a line). */
export async function excerptTranscript(path: string, maxBytes = EXCERPT_BYTES): Promise<TranscriptExcerpt> {
  const head: TranscriptLine[] = [];
  const tail: { line: TranscriptLine; bytes: number }[] = [];
  let headBytes = 0;
  let tailBytes = 0;
  let dropped = 0;
  let full = false;
  for await (const line of streamTranscript(path, () => undefined)) {
    const bytes = Buffer.byteLength(JSON.stringify(line)) + 1;
    if (!full && headBytes + bytes <= maxBytes / 2) {
      head.push(line);
      headBytes += bytes;
      continue;
    }
    full = true;
    tail.push({ line, bytes });
    tailBytes += bytes;
    while (tailBytes > maxBytes / 2 && tail.length > 0) {
      tailBytes -= tail.shift()?.bytes ?? 0;
      dropped += 1;
    }
  }
  const lines = [...head, ...tail.map((t) => t.line)];
  return dropped === 0 ? { lines } : { lines, gap: { at: head.length, lines: dropped } };
}
