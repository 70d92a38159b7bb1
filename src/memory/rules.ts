/**
 * The memory rules as pure functions over one body's entries: validation (300 characters, no
 * secrets), dedupe-refresh, topic supersede and the cap. The store runs them inside a write
 * transaction and applies the resulting plan, so every path (tool, CLI, MCP, import, edit)
 * obeys the same rules and two processes can never interleave halfway through one.
 */
import { randomBytes } from 'node:crypto';
import {
  BODY_CAP,
  HISTORY_MAX,
  ID_MAX_CHARS,
  MemoryRefusal,
  NOTE_MAX_CHARS,
  charCount,
  isMemoryId,
  normalizeTags,
  normalizeText,
  normalizeTopic,
  type Entry,
  type HistoryItem,
  type Source,
} from './entry.js';
import { secretReason } from './secret-check.js';

export interface NoteInput {
  readonly text: string;
  readonly tags?: readonly string[];
  readonly topic?: string;
  readonly source: Source;
  readonly run?: string;
}

export interface EpisodeInput {
  readonly text: string;
  readonly run?: string;
  readonly tags?: readonly string[];
}

/** Fields an import or edit may carry over from a JSONL line. */
export interface Carried {
  readonly id?: string;
  readonly created?: string;
  readonly time?: string;
  readonly history?: readonly HistoryItem[];
}

export type WriteAction = 'added' | 'refreshed' | 'superseded';

export interface Plan {
  readonly put: readonly Entry[];
  readonly del: readonly string[];
  /** The entry written (absent when the cap evicted it at once: an episode in a body full of notes). */
  readonly entry: Entry | undefined;
  readonly action: WriteAction;
  /** The text a topic supersede replaced. */
  readonly replaced?: string;
  readonly evicted: readonly Entry[];
}

export interface PlanContext {
  readonly body: string;
  readonly now: string;
}

/** Checks a note's text; returns it normalised or throws a MemoryRefusal that never quotes it. */
export function validateText(text: string, what: 'note' | 'episode' = 'note'): string {
  const t = normalizeText(text);
  if (t === '') throw new MemoryRefusal(`a ${what} needs some text`, 'empty');
  const n = charCount(t);
  if (n > NOTE_MAX_CHARS) throw new MemoryRefusal(`a ${what} is at most ${NOTE_MAX_CHARS} characters (this one has ${n}); keep one short fact`, 'too-long');
  const secret = secretReason(t);
  if (secret !== undefined) throw new MemoryRefusal(`not saved: ${secret}; secrets never go into memory, and nothing of it was kept`, 'secret');
  return t;
}

/** quackd's own run ids (`20261130-012203-find-and-kick`): long slugs the key heuristic would flag. */
const RUN_ID = /^\d{8}-\d{6}-[\w.-]+$/;
const foreignRun = (run: string | undefined) => (run !== undefined && !RUN_ID.test(run) ? run : undefined);

/**
 * Refuses a note or episode whose other stored words look like a secret: tags, topic, run id, and
 * what an import or edit carries (id, history). They are stored, exported, and tags and topic are
 * rendered into the prompt just like the text. Checked before tags and topic are lower-cased.
 */
export function checkFields(input: { readonly tags?: readonly string[]; readonly topic?: string; readonly run?: string }, carried: Carried = {}): void {
  const fields: [string, string | undefined][] = [
    ...(input.tags ?? []).map((t): [string, string] => ['a tag', t]),
    ['its topic', input.topic],
    ['its run id', foreignRun(input.run)],
    ['its id', carried.id],
    ...(carried.history ?? []).flatMap((h): [string, string | undefined][] => [['its history', h.text], ['its history', foreignRun(h.run)]]),
  ];
  for (const [where, value] of fields) {
    const secret = value !== undefined ? secretReason(value) : undefined;
    if (secret !== undefined) throw new MemoryRefusal(`not saved: ${secret}, in ${where}; secrets never go into memory, and nothing of it was kept`, 'secret');
  }
  if (carried.id !== undefined && !isMemoryId(carried.id)) {
    throw new MemoryRefusal(`its id is not one quackd keeps (only a-z, 0-9 and -, at most ${ID_MAX_CHARS} characters); leave "id" out for a new one`, 'id');
  }
}

export function newId(kind: Entry['kind'], taken: ReadonlySet<string>): string {
  for (;;) {
    // Short and typeable for `quackd memory forget ID`; 30 random bits is plenty for 400 entries.
    const id = `${kind === 'note' ? 'n' : 'e'}-${randomBytes(4).readUInt32BE(0).toString(36).padStart(6, '0').slice(-6)}`;
    if (!taken.has(id)) return id;
  }
}

const maxSeq = (entries: readonly Entry[]): number => entries.reduce((m, e) => Math.max(m, e.seq), 0);

/** Which entries go when a body is over the cap: oldest episodes first, then oldest notes. */
export function overCap(entries: readonly Entry[], cap = BODY_CAP): Entry[] {
  let excess = entries.length - cap;
  if (excess <= 0) return [];
  const byAge = (a: Entry, b: Entry) => a.seq - b.seq;
  const out: Entry[] = [];
  for (const kind of ['episode', 'note'] as const) {
    for (const e of entries.filter((x) => x.kind === kind).sort(byAge)) {
      if (excess === 0) return out;
      out.push(e);
      excess -= 1;
    }
  }
  return out;
}

function withCap(current: readonly Entry[], put: Entry[], del: string[], cap: number): { put: Entry[]; del: string[]; evicted: Entry[] } {
  const gone = new Set(del);
  const byId = new Map(current.filter((e) => !gone.has(e.id)).map((e) => [e.id, e]));
  for (const e of put) byId.set(e.id, e);
  const evicted = overCap([...byId.values()], cap);
  const evictedIds = new Set(evicted.map((e) => e.id));
  return {
    put: put.filter((e) => !evictedIds.has(e.id)),
    del: [...del, ...evicted.filter((e) => current.some((c) => c.id === e.id)).map((e) => e.id)],
    evicted,
  };
}

function pushHistory(history: readonly HistoryItem[], old: Entry): HistoryItem[] {
  const item: HistoryItem = { time: old.time, text: old.text, source: old.source, ...(old.run !== undefined ? { run: old.run } : {}) };
  return [...history, item].slice(-HISTORY_MAX);
}

/** Plans writing one note into a body whose current entries are `current`. */
export function planNote(current: readonly Entry[], input: NoteInput, ctx: PlanContext, carried: Carried = {}, cap = BODY_CAP): Plan {
  const text = validateText(input.text);
  checkFields(input, carried);
  const tags = normalizeTags(input.tags);
  const topic = normalizeTopic(input.topic);
  const seq = maxSeq(current) + 1;
  const time = carried.time ?? ctx.now;
  const notes = current.filter((e) => e.kind === 'note');
  const sameTopic = topic !== undefined ? notes.find((n) => n.topic === topic) : undefined;
  const sameText = notes.find((n) => n.text === text && n.id !== sameTopic?.id);
  const target = sameTopic ?? sameText;
  const writer = { source: input.source, ...(input.run !== undefined ? { run: input.run } : {}) };
  const del: string[] = [];
  let entry: Entry;
  let action: WriteAction;
  let replaced: string | undefined;
  if (target === undefined) {
    const taken = new Set(current.map((e) => e.id));
    const id = carried.id !== undefined && !taken.has(carried.id) ? carried.id : newId('note', taken);
    entry = { v: 1, id, kind: 'note', body: ctx.body, text, tags, ...writer, ...(topic !== undefined ? { topic } : {}), created: carried.created ?? time, time, seq, history: (carried.history ?? []).slice(-HISTORY_MAX) };
    action = 'added';
  } else {
    const superseding = target.text !== text;
    // A note equal to the new text but under another (or no) topic folds into the target.
    if (sameTopic !== undefined && sameText !== undefined) del.push(sameText.id);
    const mergedTags = superseding && tags.length > 0 ? tags : [...new Set([...target.tags, ...tags, ...(sameTopic && sameText ? sameText.tags : [])])];
    // Written here now: the robot it came from (src/memory/share) no longer speaks for it.
    const { run: _oldRun, topic: oldTopic, from: _from, ...rest } = target;
    entry = {
      ...rest,
      ...writer,
      text,
      tags: mergedTags,
      ...((topic ?? oldTopic) !== undefined ? { topic: topic ?? oldTopic } : {}),
      time: carried.time !== undefined && carried.time < target.time ? target.time : time,
      seq,
      history: superseding ? pushHistory(target.history, target) : target.history,
    };
    action = superseding ? 'superseded' : 'refreshed';
    if (superseding) replaced = target.text;
  }
  const capped = withCap(current, [entry], del, cap);
  const kept = capped.put.find((e) => e.id === entry.id);
  return { put: capped.put, del: capped.del, entry: kept, action, ...(replaced !== undefined ? { replaced } : {}), evicted: capped.evicted };
}

/** Plans writing one episode; episodes are records of distinct runs, so they are never deduped. */
export function planEpisode(current: readonly Entry[], input: EpisodeInput, ctx: PlanContext, carried: Carried = {}, cap = BODY_CAP): Plan {
  const text = validateText(input.text, 'episode');
  checkFields(input, carried);
  const taken = new Set(current.map((e) => e.id));
  const id = carried.id !== undefined && !taken.has(carried.id) ? carried.id : newId('episode', taken);
  const time = carried.time ?? ctx.now;
  const entry: Entry = {
    v: 1,
    id,
    kind: 'episode',
    body: ctx.body,
    text,
    tags: normalizeTags(input.tags),
    source: 'quackd',
    ...(input.run !== undefined ? { run: input.run } : {}),
    created: carried.created ?? time,
    time,
    seq: maxSeq(current) + 1,
    history: (carried.history ?? []).slice(-HISTORY_MAX),
  };
  const capped = withCap(current, [entry], [], cap);
  return { put: capped.put, del: capped.del, entry: capped.put.find((e) => e.id === id), action: 'added', evicted: capped.evicted };
}

/** Newest first, the order every reader wants. */
export function newestFirst(entries: readonly Entry[]): Entry[] {
  return [...entries].sort((a, b) => b.seq - a.seq);
}
