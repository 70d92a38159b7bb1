/**
 * `quackd transcript show ID`: a run's lines for people (or as JSONL), streamed from its file;
 * a run without an end line ends with the word `transcript list` gives it, unfinished, and why.
 */
import { join } from 'node:path';
import type { TranscriptEvent, TranscriptLine } from '../transcript/events.js';
import { skippedLine, streamTranscript } from '../transcript/reader.js';
import { unfinishedReason } from '../transcript/unfinished.js';
import { writerAlive } from '../transcript/writer-alive.js';
import { EXIT } from './errors.js';
import type { Output } from './output.js';
import { printUnfinished } from './run-printer.js';
import { transcriptPrinter } from './transcript-format.js';

/** Prints run `id` of `dir`; its exit code (1 when the file holds nothing at all). */
export async function showTranscript(io: Output, dir: string, id: string, options: { json: boolean; frames: boolean }): Promise<number> {
  let skipped = 0;
  let records = 0;
  let start: Extract<TranscriptEvent, { type: 'start' }> | undefined;
  let ended = false;
  const print = options.json ? (l: TranscriptLine) => io.line(JSON.stringify(l)) : transcriptPrinter(io, options.frames);
  for await (const l of streamTranscript(join(dir, `${id}.jsonl`), () => (skipped += 1))) {
    records += 1;
    if (l.type === 'start') start = l;
    if (l.type === 'end') ended = true;
    print(l);
  }
  if (skipped > 0) io.err.write(`${skippedLine(skipped, id)}\n`);
  if (records === 0 && skipped === 0) {
    io.err.write(`quackd: transcript ${id} is empty: its run wrote nothing (stopped as it began?)\n`);
    return EXIT.failure;
  }
  if (!ended) {
    const alive = writerAlive(start);
    printUnfinished(io, id, unfinishedReason(start, alive), options.json, alive === true);
  }
  return EXIT.ok;
}
