/**
 * Recall by words: BM25 over one body's entries, what every recall on demand (the store's
 * search, src/memory/store.ts) ranks by, alone or fused with meaning (src/memory/fusion.ts). A
 * natural question shares only some words with the note that answers it, so any query word may match; words are lower-cased, stripped of
 * accents and stemmed (Porter, so kicked/kicking and battery/batteries meet). Below a relevance
 * floor it returns nothing rather than the nearest irrelevant entry: a confident wrong memory is
 * worse than none. Identical entries (the same episode three times) come back once, with a count.
 * Newest wins ties.
 */
import { stemmer as porter } from 'stemmer';
import { sameSaying, type Entry } from './entry.js';
import { newestFirst } from './rules.js';

const K1 = 1.2;
const B = 0.75;
/**
 * A memory smaller than this is weighed as if it had this many entries, the rest sharing no
 * word of the question. In four entries a word two of them have (a note, and the episode of the
 * run that saved it) is not a common word, but its IDF against n = 4 would be half a unique
 * word's and fall under the floor; from a few hundred entries up (the evals) nothing changes.
 */
const SMALL_MEMORY = 50;

/**
 * How good the best match must be, in evidence: the summed IDF of the query words an entry
 * matched, over the IDF of a word only one entry has (a perfect single-word match is 1). Words of
 * the question that no entry has do not count, so a long natural question is not held against its
 * answer; a match only on words many entries share (duck, ball, room, kitchen) stays under it.
 * Measured with `npm run eval:memory`.
 */
export const DEFAULT_FLOOR = 0.7;
/**
 * And how much of the question the memory could answer that the entry does answer: its share of
 * the IDF of the query words that some entry has.
 */
export const DEFAULT_COVER = 0.4;

const STOPWORDS = new Set(
  ('a an the and or but of to in on at for by with from into onto about as is are was were be been being am do does did ' +
    'have has had i me my you your we our us they them their he she it its this that these those there here what which who whom ' +
    'whose when where why how can could should would will shall may might must any some all each every if then than so too very ' +
    'just also not no yes please tell know remember recall find robot again ever still last ago thing things get got ' +
    // Words a question is phrased with rather than about ("how long", "go near", "what do I need").
    'go goes going went come comes take takes make made like likes want wants need needs many much long way now today ' +
    'one something anything someone anyone happen happened known ok')
    .split(' '),
);

/**
 * Porter's stemmer (kick/kicks/kicking/kicked, mop/mopped/mopping, battery/batteries), plus the
 * agent noun Porter keeps apart: charger and cleaner meet charge and clean. Short words keep their
 * -er (water, under, never).
 */
export function stem(word: string): string {
  const s = porter(word);
  return s.length >= 7 && s.endsWith('er') ? porter(s.slice(0, -2)) : s;
}

export function tokens(text: string): string[] {
  const words = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u);
  return words.filter((w) => w.length > 1 && !STOPWORDS.has(w)).map(stem);
}

export interface RecallHit {
  /** The newest of the identical entries this hit stands for. */
  readonly entry: Entry;
  /** How many entries say exactly this (the same episode run three times is one hit, ×3). */
  readonly count: number;
  /** The ids of all of them, newest first. */
  readonly ids: readonly string[];
  readonly score: number;
  /** Evidence of the match: summed IDF of the matched words over that of a word only one entry has. */
  readonly evidence: number;
}

export interface RecallOptions {
  readonly limit?: number;
  readonly floor?: number;
  readonly cover?: number;
}

/** One entry's BM25 match: its score, its evidence, and whether it clears the floor and cover. */
export interface WordMatch {
  readonly entry: Entry;
  readonly score: number;
  readonly evidence: number;
  readonly clears: boolean;
}

/** Every entry that shares a known word with `query`, newest first, scored (src/memory/fusion.ts ranks them too). */
export function wordMatches(entries: readonly Entry[], query: string, options: RecallOptions = {}): WordMatch[] {
  const floor = options.floor ?? DEFAULT_FLOOR;
  const cover = options.cover ?? DEFAULT_COVER;
  const q = [...new Set(tokens(query))];
  if (q.length === 0 || entries.length === 0) return [];
  const docs = newestFirst(entries).map((entry) => {
    const toks = tokens([entry.text, entry.topic ?? '', ...entry.tags].join(' '));
    const tf = new Map<string, number>();
    for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
    return { entry, tf, len: toks.length };
  });
  const n = docs.length;
  const avgLen = docs.reduce((s, d) => s + d.len, 0) / n || 1;
  const weighed = Math.max(n, SMALL_MEMORY);
  const idfOf = (df: number) => Math.log(1 + (weighed - df + 0.5) / (df + 0.5));
  const perfect = idfOf(1);
  // Only words some entry has weigh: a word nobody wrote down says nothing about any entry.
  const idf = new Map<string, number>();
  for (const t of q) {
    const df = docs.filter((d) => d.tf.has(t)).length;
    if (df > 0) idf.set(t, idfOf(df));
  }
  const known = [...idf.values()].reduce((s, v) => s + v, 0);
  const out: WordMatch[] = [];
  for (const d of docs) {
    let score = 0;
    let matched = 0;
    for (const [t, w] of idf) {
      const f = d.tf.get(t);
      if (f === undefined) continue;
      matched += w;
      score += (w * f * (K1 + 1)) / (f + K1 * (1 - B + (B * d.len) / avgLen));
    }
    if (score <= 0) continue;
    const evidence = matched / perfect;
    out.push({ entry: d.entry, score, evidence, clears: evidence >= floor && matched >= cover * known });
  }
  return out;
}

/**
 * Folds identical entries (newest first in `scored`) into one hit each, with a count, and keeps
 * the best `limit` by score; a stable sort, so equal scores keep the newest on top.
 */
export function foldHits<H extends Omit<RecallHit, 'count' | 'ids'>>(scored: readonly H[], limit: number): (H & Pick<RecallHit, 'count' | 'ids'>)[] {
  const groups = new Map<string, { hit: H; ids: string[] }>();
  for (const hit of scored) {
    const key = sameSaying(hit.entry);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { hit, ids: [hit.entry.id] });
    else group.ids.push(hit.entry.id);
  }
  const hits = [...groups.values()].map(({ hit, ids }) => ({ ...hit, count: ids.length, ids }));
  return hits.sort((a, b) => b.score - a.score).slice(0, limit);
}

/** Ranks `entries` for `query`, best first; [] when nothing clears the floor. */
export function rank(entries: readonly Entry[], query: string, options: RecallOptions = {}): RecallHit[] {
  const cleared = wordMatches(entries, query, options).filter((m) => m.clears);
  return foldHits(cleared.map(({ entry, score, evidence }) => ({ entry, score, evidence })), options.limit ?? 5);
}
