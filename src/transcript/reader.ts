/**
 * Reads transcripts back: the list of runs (newest first) and one run's lines. Tolerant: a line
 * that is not a transcript record (a torn last write, `null`, `5`, `[1,2,3]`, an object without
 * its `type` and `t`) is skipped and counted, never fatal.
 */
import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { basename, join } from 'node:path';
import { InputError } from '../errors.js';
import { printable } from '../text/printable.js';
import { didYouMean } from '../text/suggest.js';
import type { TranscriptLine } from './events.js';
import { transcriptEnds } from './ends.js';
import { transcriptRecord } from './record.js';

export interface TranscriptSummary {
  readonly id: string;
  readonly path: string;
  readonly started?: string;
  readonly duck?: string;
  readonly body?: string;
  /** The robot's fleet name, when the run was on a robot of the config file's fleet. */
  readonly robot?: string;
  readonly provider?: string;
  readonly dryRun?: boolean;
  readonly outcome?: string;
  readonly reason?: string;
  readonly steps?: number;
}

export { transcriptRecord } from './record.js';

/**
 * One run's records as they are read, line by line from a stream: a transcript with frames runs
 * to tens of megabytes, and held whole (text, lines, records) it took fifteen times its size.
 * `onSkipped` is told of each line that is not a record.
 */
export async function* streamTranscript(path: string, onSkipped: () => void): AsyncGenerator<TranscriptLine> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const raw of lines) {
    if (raw.trim() === '') continue;
    const line = transcriptRecord(raw);
    if (line !== undefined) yield line;
    else onSkipped();
  }
}

export function readTranscript(path: string): { lines: TranscriptLine[]; skipped: number } {
  const lines: TranscriptLine[] = [];
  let skipped = 0;
  for (const raw of readFileSync(path, 'utf8').split('\n')) {
    if (raw.trim() === '') continue;
    const line = transcriptRecord(raw);
    if (line !== undefined) lines.push(line);
    else skipped += 1;
  }
  return { lines, skipped };
}

/** `quackd: 2 lines skipped in <id>: not transcript records`, said once after the run is shown. */
export function skippedLine(skipped: number, id: string): string {
  return `quackd: ${skipped} line${skipped > 1 ? 's' : ''} skipped in ${id}: not transcript records`;
}

export function listTranscriptIds(dir: string): string[] {
  if (!existsSync(dir)) return [];
  // Newest first: by the id's second, then, within one second, by which file was created last
  // (as text, `x-9` would beat `x-10`, and `zebra` would beat an `apple` that started later).
  const runs = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.jsonl'))
    .map((e) => {
      const st = statSync(join(dir, e.name));
      return { id: basename(e.name, '.jsonl'), born: st.birthtimeMs || st.ctimeMs };
    });
  const second = (id: string) => id.slice(0, 15);
  // Compared as code points, not localeCompare: ids are ASCII, and the collator's first use loads
  // ICU's collation (15 ms on a loaded 2-core VM), which every CLI run paid (retention lists runs).
  const byText = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return runs.sort((a, b) => byText(second(b.id), second(a.id)) || b.born - a.born || byText(b.id, a.id)).map((r) => r.id);
}

/** A run's row in `transcript list`: its start and end lines only, read from the file's two ends. */
export function summarize(dir: string, id: string): TranscriptSummary {
  const path = join(dir, `${id}.jsonl`);
  const { start, end } = transcriptEnds(path);
  return {
    id,
    path,
    ...(start !== undefined ? { started: start.t, duck: start.duck, body: start.body, ...(start.robot !== undefined ? { robot: start.robot } : {}), provider: start.provider, dryRun: start.dryRun } : {}),
    ...(end !== undefined ? { outcome: end.outcome, reason: end.reason, steps: end.steps } : {}),
  };
}

/** `last`, a full id, or a unique prefix of one. */
export function resolveTranscriptId(dir: string, ref: string): string {
  const ids = listTranscriptIds(dir);
  if (ids.length === 0) throw new InputError('no transcripts yet', "'quackd run hello-world' makes one");
  if (ref === 'last') return ids[0]!;
  if (ids.includes(ref)) return ref;
  const matches = ids.filter((id) => id.startsWith(ref));
  if (matches.length === 1) return matches[0]!;
  // The id as typed is shown escaped: a terminal must not run what an argument carried.
  if (matches.length > 1) throw new InputError(`transcript "${printable(ref)}" is ambiguous: ${matches.length} runs start with it`);
  throw new InputError(`no transcript "${printable(ref)}"${didYouMean(ref, ids)}`, "'quackd transcript list' shows them");
}
