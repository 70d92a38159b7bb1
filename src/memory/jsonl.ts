/**
 * Memory as JSONL, the format of `memory export`, `import`, `edit` and the legacy per-body files.
 * Reading is forgiving: a line that is not JSON, or has no text, is skipped and reported by line
 * number, and the valid lines are kept, because a person edited the file by hand.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { printable } from '../text/printable.js';
import { SOURCES, historySchema, type Entry, type HistoryItem, type Source } from './entry.js';

/** One line as read: everything but the text is optional and filled in by the store. */
export interface JsonlLine {
  readonly line: number;
  readonly id?: string;
  readonly kind: Entry['kind'];
  readonly text: string;
  readonly tags: readonly string[];
  readonly topic?: string;
  readonly source?: Source;
  readonly run?: string;
  /** The body an exported line came from, when it says. */
  readonly body?: string;
  readonly time?: string;
  readonly created?: string;
  readonly history?: readonly HistoryItem[];
}

export interface Skipped {
  readonly line: number;
  readonly reason: string;
}

export interface JsonlParse {
  readonly lines: readonly JsonlLine[];
  readonly skipped: readonly Skipped[];
}

const lineSchema = z.object({
  text: z.string(),
  // Judged by the rules (rules.ts's checkFields), so a bad id is named rather than swapped silently.
  id: z.string().min(1).optional().catch(undefined),
  kind: z.enum(['note', 'episode']).optional(),
  tags: z.union([z.array(z.string()), z.string().transform((t) => [t])]).optional().catch(undefined),
  topic: z.string().optional().catch(undefined),
  source: z.enum(SOURCES).optional().catch(undefined),
  run: z.string().optional().catch(undefined),
  body: z.string().optional().catch(undefined),
  time: z.iso.datetime({ offset: true }).optional().catch(undefined),
  created: z.iso.datetime({ offset: true }).optional().catch(undefined),
  history: z.array(historySchema).optional().catch(undefined),
});

/** A parse being built. */
interface Collected {
  readonly lines: JsonlLine[];
  readonly skipped: Skipped[];
}

export function parseJsonl(text: string): JsonlParse {
  const into: Collected = { lines: [], skipped: [] };
  text.split(/\r?\n/).forEach((raw, i) => parseJsonlLine(raw, i + 1, into));
  return into;
}

/** Reads JSONL from a stream line by line, so a large import never holds the file as one string. */
export async function readJsonl(input: Readable): Promise<JsonlParse> {
  const into: Collected = { lines: [], skipped: [] };
  let n = 0;
  for await (const raw of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) parseJsonlLine(raw, (n += 1), into);
  return into;
}

/** Parses line number `line` of a JSONL file into `into` (a blank line adds nothing). */
function parseJsonlLine(raw: string, line: number, { lines, skipped }: Collected): void {
  if (raw.trim() === '') return;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    skipped.push({ line, reason: 'not JSON' });
    return;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    skipped.push({ line, reason: 'not a JSON object' });
    return;
  }
  const parsed = lineSchema.safeParse(value);
  if (!parsed.success) {
    const kindBad = parsed.error.issues.some((x) => x.path[0] === 'kind');
    skipped.push({ line, reason: kindBad ? 'kind must be "note" or "episode"' : 'no text' });
    return;
  }
  const d = parsed.data;
  if (d.text.trim() === '') {
    skipped.push({ line, reason: 'no text' });
    return;
  }
  lines.push({
    line,
    kind: d.kind ?? 'note',
    text: d.text,
    tags: d.tags ?? [],
    ...(d.id !== undefined ? { id: d.id } : {}),
    ...(d.topic !== undefined ? { topic: d.topic } : {}),
    ...(d.source !== undefined ? { source: d.source } : {}),
    ...(d.run !== undefined ? { run: d.run } : {}),
    ...(d.body !== undefined ? { body: d.body } : {}),
    ...(d.time !== undefined ? { time: new Date(d.time).toISOString() } : {}),
    ...(d.created !== undefined ? { created: new Date(d.created).toISOString() } : {}),
    ...(d.history !== undefined ? { history: d.history } : {}),
  });
}

/** One line for a person: `m.jsonl: skipped 2 lines (3: not JSON; 7: no text); 14 kept`. */
export function skippedWarning(source: string, skipped: readonly Skipped[], kept?: number): string | undefined {
  if (skipped.length === 0) return undefined;
  // A reason may quote the file (a line's body, a rule's refusal of its text): shown escaped.
  const shown = skipped.slice(0, 10).map((s) => `${s.line}: ${printable(s.reason)}`);
  const more = skipped.length > 10 ? `; and ${skipped.length - 10} more` : '';
  const keptPart = kept !== undefined ? `; ${kept} kept` : '';
  return `${printable(source)}: skipped ${skipped.length} line${skipped.length === 1 ? '' : 's'} (${shown.join('; ')}${more})${keptPart}`;
}

/** Entries as JSONL, oldest first, so importing the file back keeps their order. */
export function toJsonl(entries: readonly Entry[]): string {
  return [...entries]
    .sort((a, b) => a.seq - b.seq)
    .map((e) => `${JSON.stringify(e)}\n`)
    .join('');
}
