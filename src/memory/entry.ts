/**
 * What one memory entry is, once: the zod schema of a stored note or episode (the type is
 * z.infer of it), the limits every path shares, and the normalisation that decides when two notes
 * are "the same". Everything that reads from or writes to the store goes through these.
 */
import { z } from 'zod';
import type { BodyKey } from '../bodies/body.js';

/** A note is at most this many characters (after trimming and folding whitespace). */
export const NOTE_MAX_CHARS = 300;
/** Entries kept per body; past it the oldest episodes go first, notes only when no episode is left. */
export const BODY_CAP = 400;
export const MAX_TAGS = 8;
export const TAG_MAX_CHARS = 32;
export const TOPIC_MAX_CHARS = 60;
/** Superseded texts kept per note; older ones fall off so a busy topic cannot grow without end. */
export const HISTORY_MAX = 10;
/** Ids longer than this are refused (quackd's own are 8 characters: `n-1a2b3c`). */
export const ID_MAX_CHARS = 40;

/**
 * What an id may be: the characters quackd makes its own from (rules.ts's newId). An id is one
 * MQTT topic level in fleet memory and a word a person types after `memory forget`, so `/`, `+`,
 * `#`, spaces and the rest never enter, whatever a file being imported says.
 */
export function isMemoryId(id: string): boolean {
  return id.length <= ID_MAX_CHARS && /^[a-z0-9][a-z0-9-]*$/.test(id);
}

export const SOURCES = ['model', 'human', 'mcp', 'quackd'] as const;
export type Source = (typeof SOURCES)[number];

const iso = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'not an ISO 8601 time');

export const historySchema = z.object({
  time: iso,
  text: z.string(),
  source: z.enum(SOURCES),
  run: z.string().optional(),
});

export const entrySchema = z.object({
  v: z.literal(1),
  id: z.string().min(1).max(ID_MAX_CHARS),
  kind: z.enum(['note', 'episode']),
  body: z.string().regex(/^[^:\s]+:[^:\s]+$/),
  text: z.string().min(1),
  tags: z.array(z.string()),
  source: z.enum(SOURCES),
  run: z.string().optional(),
  topic: z.string().optional(),
  /** When the entry was first written. */
  created: iso,
  /** When it was last written, refreshed or superseded. */
  time: iso,
  /** Per-body write order: newest is highest. Clocks on robots jump (no RTC), so order is not time. */
  seq: z.number().int().nonnegative(),
  history: z.array(historySchema),
  /** The robot that wrote it, when another quackd did and it came over the fleet's broker (src/memory/share). */
  from: z.string().min(1).max(64).optional(),
});

export type Entry = z.infer<typeof entrySchema>;
export type HistoryItem = z.infer<typeof historySchema>;
export type Note = Entry & { kind: 'note' };
export type Episode = Entry & { kind: 'episode' };

/**
 * The shape check on the read path. Zod would do it too, but reads happen on every write and
 * render and the schema check cost as much as the read itself; doctor still runs the schema.
 */
export function looksLikeEntry(v: unknown): v is Entry {
  if (typeof v !== 'object' || v === null) return false;
  const e = v as Record<string, unknown>;
  return (
    e['v'] === 1 &&
    typeof e['id'] === 'string' &&
    (e['kind'] === 'note' || e['kind'] === 'episode') &&
    typeof e['body'] === 'string' &&
    typeof e['text'] === 'string' &&
    Array.isArray(e['tags']) &&
    (SOURCES as readonly unknown[]).includes(e['source']) &&
    typeof e['created'] === 'string' &&
    typeof e['time'] === 'string' &&
    typeof e['seq'] === 'number' &&
    Array.isArray(e['history']) &&
    (e['topic'] === undefined || typeof e['topic'] === 'string') &&
    (e['run'] === undefined || typeof e['run'] === 'string') &&
    (e['from'] === undefined || typeof e['from'] === 'string')
  );
}

/** A user-facing refusal (too long, looks like a secret, …). Its message never quotes the text. */
export class MemoryRefusal extends Error {
  override readonly name = 'MemoryRefusal';
  constructor(
    message: string,
    readonly code: 'empty' | 'too-long' | 'secret' | 'tags' | 'topic' | 'id',
  ) {
    super(message);
  }
}

export function normalizeText(text: string): string {
  return text.normalize('NFC').trim().replace(/\s+/g, ' ');
}

/**
 * Entries that say exactly the same: the same kind and text (an episode's text holds its duck,
 * outcome and facts). Recall and the prompt block show them once, with a count.
 */
export function sameSaying(e: Pick<Entry, 'kind' | 'text'>): string {
  return `${e.kind}\n${e.text}`;
}

export function normalizeTopic(topic: string | undefined): string | undefined {
  if (topic === undefined) return undefined;
  const t = normalizeText(topic).toLowerCase();
  if (t === '') return undefined;
  if (t.length > TOPIC_MAX_CHARS) throw new MemoryRefusal(`a topic is at most ${TOPIC_MAX_CHARS} characters`, 'topic');
  return t;
}

export function normalizeTags(tags: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const raw of tags ?? []) {
    const t = normalizeText(raw).toLowerCase().replace(/^#/, '');
    if (t === '' || out.includes(t)) continue;
    if (t.length > TAG_MAX_CHARS) throw new MemoryRefusal(`a tag is at most ${TAG_MAX_CHARS} characters`, 'tags');
    out.push(t);
  }
  if (out.length > MAX_TAGS) throw new MemoryRefusal(`at most ${MAX_TAGS} tags per note`, 'tags');
  return out;
}

/** Characters as a person counts them (code points), not UTF-16 units. */
export function charCount(text: string): number {
  return [...text].length;
}

export function isBodyKey(key: string): key is BodyKey {
  return /^[a-z0-9][a-z0-9_-]*:[a-z0-9][a-z0-9_-]*$/.test(key);
}
