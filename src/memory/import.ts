/**
 * Bringing JSONL into one body's memory: `memory import`, the legacy per-body files and
 * `memory edit`. Each runs in one write transaction, and every line passes the same rules as a
 * remembered note (300 characters, no secrets, dedupe, topic supersede, cap); a refused line is
 * skipped and reported like a malformed one.
 */
import { HISTORY_MAX, MemoryRefusal, normalizeTags, normalizeText, normalizeTopic, type Entry, type Source } from './entry.js';
import type { JsonlLine, JsonlParse, Skipped } from './jsonl.js';
import { checkFields, validateText } from './rules.js';
import type { BodyTx, LmdbBody } from './lmdb-store.js';

export interface ImportResult {
  readonly added: number;
  readonly refreshed: number;
  readonly superseded: number;
  /** Lines whose entry (same id and text) is already in the body. */
  readonly unchanged: number;
  readonly evicted: number;
  /** Malformed lines from the parse plus lines the rules refused. */
  readonly skipped: readonly Skipped[];
}

function carriedOf(l: JsonlLine) {
  return {
    ...(l.id !== undefined ? { id: l.id } : {}),
    ...(l.time !== undefined ? { time: l.time } : {}),
    ...(l.created !== undefined ? { created: l.created } : {}),
    ...(l.history !== undefined ? { history: l.history } : {}),
  };
}

function writeLine(tx: BodyTx, l: JsonlLine, source: Source) {
  if (l.kind === 'episode') return tx.addEpisode({ text: l.text, tags: l.tags, ...(l.run !== undefined ? { run: l.run } : {}) }, carriedOf(l));
  return tx.remember(
    { text: l.text, tags: l.tags, source: l.source === 'quackd' ? source : (l.source ?? source), ...(l.topic !== undefined ? { topic: l.topic } : {}), ...(l.run !== undefined ? { run: l.run } : {}) },
    carriedOf(l),
  );
}

/** Adds the parsed lines to `body` in one transaction, in file order. */
export function importLines(body: LmdbBody, parse: JsonlParse, source: Source = 'human'): ImportResult {
  const skipped: Skipped[] = [...parse.skipped];
  const counts = { added: 0, refreshed: 0, superseded: 0, unchanged: 0, evicted: 0 };
  body.batch((tx) => {
    for (const l of parse.lines) {
      // Importing an export back is a no-op for entries that are still there.
      const existing = l.id !== undefined ? tx.get(l.id) : undefined;
      if (existing !== undefined && existing.kind === l.kind && existing.text === normalizeText(l.text)) {
        counts.unchanged += 1;
        continue;
      }
      try {
        const plan = writeLine(tx, l, source);
        counts[plan.action] += 1;
        counts.evicted += plan.evicted.length;
      } catch (err) {
        if (!(err instanceof MemoryRefusal)) throw err;
        skipped.push({ line: l.line, reason: err.message });
      }
    }
  });
  skipped.sort((a, b) => a.line - b.line);
  return { ...counts, skipped };
}

export interface EditResult {
  readonly changed: number;
  readonly added: number;
  readonly removed: number;
  readonly skipped: readonly Skipped[];
}

/**
 * Writes back an edited JSONL of `snapshot` (what the editor was given) in one transaction.
 * Lines with a snapshot id update that entry; lines without one are new notes; snapshot
 * entries whose line is gone are removed. Entries other processes added meanwhile are left alone.
 */
export function applyEdit(body: LmdbBody, snapshot: readonly Entry[], parse: JsonlParse, now: () => string): EditResult {
  const skipped: Skipped[] = [...parse.skipped];
  const before = new Map(snapshot.map((e) => [e.id, e]));
  const seen = new Set<string>();
  const counts = { changed: 0, added: 0, removed: 0 };
  body.batch((tx) => {
    for (const l of parse.lines) {
      const old = l.id !== undefined ? before.get(l.id) : undefined;
      try {
        if (old === undefined || seen.has(old.id)) {
          const { id: _drop, ...fresh } = l;
          writeLine(tx, fresh, 'human');
          counts.added += 1;
          continue;
        }
        seen.add(old.id);
        const text = validateText(l.text, old.kind);
        checkFields({ tags: l.tags, ...(l.topic !== undefined ? { topic: l.topic } : {}) });
        const tags = normalizeTags(l.tags);
        const topic = old.kind === 'note' ? normalizeTopic(l.topic) : undefined;
        // Only what the person changed is written: a line left as it was in the editor keeps
        // whatever another process wrote to its entry meanwhile (a refresh, a topic supersede).
        if (text === old.text && tags.join('\u0000') === old.tags.join('\u0000') && topic === old.topic) continue;
        const current = tx.get(old.id);
        if (current === undefined) continue;
        counts.changed += 1;
        // A note edited into another note's text or topic folds into it, as `remember` would.
        const twin = current.kind === 'note' ? tx.entries().find((e) => e.kind === 'note' && e.id !== current.id && (e.text === text || (topic !== undefined && e.topic === topic))) : undefined;
        if (twin !== undefined) {
          tx.remove(current.id);
          tx.remember({ text, tags, source: 'human', ...(topic !== undefined ? { topic } : {}) });
          continue;
        }
        const { topic: _t, ...rest } = current;
        const history = text === current.text ? current.history : [...current.history, { time: current.time, text: current.text, source: current.source, ...(current.run !== undefined ? { run: current.run } : {}) }];
        tx.put({ ...rest, text, tags, ...(topic !== undefined ? { topic } : {}), time: now(), history: history.slice(-HISTORY_MAX) });
      } catch (err) {
        if (!(err instanceof MemoryRefusal)) throw err;
        if (old !== undefined) seen.add(old.id);
        skipped.push({ line: l.line, reason: err.message });
      }
    }
    for (const id of before.keys()) if (!seen.has(id) && tx.remove(id)) counts.removed += 1;
  });
  skipped.sort((a, b) => a.line - b.line);
  return { ...counts, skipped };
}
