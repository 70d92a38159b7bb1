/** One line of a transcript file as a record every printer can take: the reader's and the ends' shared test. */
import { isRecord } from '../is-record.js';
import type { TranscriptLine } from './events.js';

/** One line of a transcript file as a record every printer can take, or undefined. */
export function transcriptRecord(raw: string): TranscriptLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  return isTranscriptLine(value) ? value : undefined;
}

/** Every writer sets both; a printer reads both (a time, a kind of line) before anything else. */
function isTranscriptLine(value: unknown): value is TranscriptLine {
  return isRecord(value) && typeof value['type'] === 'string' && typeof value['t'] === 'string';
}
