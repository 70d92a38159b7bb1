/**
 * Bringing JSONL into one body's memory: `memory import`, the legacy per-body files and
 * `memory edit`. Each runs in one write transaction, and every line passes the same rules as a
 * remembered note (300 characters, no secrets, dedupe, topic supersede, cap); a refused line is
 * skipped and reported like a malformed one.
 */
import { HISTORY_MAX, MemoryRefusal, normalizeTags, normalizeText, normalizeTopic, type Entry, type Source } from './entry.js';
import type { JsonlLine, JsonlParse, Skipped } from './jsonl.js';
import { checkFields, validateText } from './rules.js';
import { said, type Shown } from './edit-shown.js';
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
  /**
   * Entries written since the editor was given them whose line the person changed or deleted:
   * the newer is kept (`line`: the line not written; none: the entry not removed), and
   * `forgotten` ones stay forgotten.
   */
  readonly newer: readonly { readonly id: string; readonly was: 'changed' | 'forgotten'; readonly line?: number }[];
}

/**
 * Writes back an edited JSONL of what the editor was `shown` (edit-shown.ts) in one transaction.
 * Lines with a shown id update that entry; lines without one are new notes; shown entries whose
 * line is gone are removed. Only what the person changed is written, and never over a newer
 * write: entries others added meanwhile are left alone, and one changed or forgotten since it was
 * shown stays as it now is, named in `newer`.
 */
export function applyEdit(body: LmdbBody, shown: Shown, parse: JsonlParse, now: () => string): EditResult {
  const skipped: Skipped[] = [...parse.skipped];
  const seen = new Set<string>();
  const counts = { changed: 0, added: 0, removed: 0 };
  const newer: EditResult['newer'][number][] = [];
  const wasShown = (id: string | undefined): id is string => id !== undefined && Object.hasOwn(shown, id) && !seen.has(id);
  body.batch((tx) => {
    for (const l of parse.lines) {
      const id = l.id;
      try {
        if (!wasShown(id)) {
          const { id: _drop, ...fresh } = l;
          writeLine(tx, fresh, 'human');
          counts.added += 1;
          continue;
        }
        seen.add(id);
        const current = tx.get(id);
        const kind = current?.kind ?? l.kind;
        const text = validateText(l.text, kind);
        checkFields({ tags: l.tags, ...(l.topic !== undefined ? { topic: l.topic } : {}) });
        const tags = normalizeTags(l.tags);
        const topic = kind === 'note' ? normalizeTopic(l.topic) : undefined;
        const wanted = said({ kind, text, tags, topic });
        // A line left as it was shown keeps whatever was written to its entry meanwhile.
        if (wanted === shown[id]) continue;
        if (current === undefined) {
          newer.push({ id, was: 'forgotten', line: l.line });
          continue;
        }
        if (said(current) !== shown[id]) {
          if (said(current) !== wanted) newer.push({ id, was: 'changed', line: l.line });
          continue;
        }
        counts.changed += 1;
        writeChange(tx, current, { text, tags, topic }, now);
      } catch (err) {
        if (!(err instanceof MemoryRefusal)) throw err;
        if (id !== undefined) seen.add(id);
        skipped.push({ line: l.line, reason: err.message });
      }
    }
    for (const [id, was] of Object.entries(shown)) {
      if (seen.has(id)) continue;
      const current = tx.get(id);
      if (current === undefined) continue;
      if (said(current) !== was) newer.push({ id, was: 'changed' });
      else if (tx.remove(id)) counts.removed += 1;
    }
  });
  skipped.sort((a, b) => a.line - b.line);
  return { ...counts, skipped, newer };
}

/** The person's text, tags and topic for `current`, its old text into history. */
function writeChange(tx: BodyTx, current: Entry, change: { text: string; tags: string[]; topic: string | undefined }, now: () => string): void {
  const { text, tags, topic } = change;
  // A note edited into another note's text or topic folds into it, as `remember` would.
  const twin = current.kind === 'note' ? tx.entries().find((e) => e.kind === 'note' && e.id !== current.id && (e.text === text || (topic !== undefined && e.topic === topic))) : undefined;
  if (twin !== undefined) {
    tx.remove(current.id);
    tx.remember({ text, tags, source: 'human', ...(topic !== undefined ? { topic } : {}) });
    return;
  }
  const { topic: _t, ...rest } = current;
  const history = text === current.text ? current.history : [...current.history, { time: current.time, text: current.text, source: current.source, ...(current.run !== undefined ? { run: current.run } : {}) }];
  tx.put({ ...rest, text, tags, ...(topic !== undefined ? { topic } : {}), time: now(), history: history.slice(-HISTORY_MAX) });
}
