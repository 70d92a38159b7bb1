/**
 * Recall on demand (`quackd memory search`, and `recall(body, query)` for the MCP server): BM25
 * over one body's entries. A natural question shares only some words with the note that answers
 * it, so any query word may match; words are lower-cased, stripped of accents and lightly stemmed
 * (charger/charging/charged meet). Below a relevance floor it returns nothing rather than the
 * nearest irrelevant entry: a confident wrong memory is worse than none. Newest wins ties.
 */
import type { Entry } from './entry.js';
import { newestFirst } from './rules.js';
/** Anything that can list a body's entries: the store's BodyMemory, or the engine's. */
interface BodyEntries {
  entries(): Entry[];
}

const K1 = 1.2;
const B = 0.75;
/**
 * Share of the query's weight (summed IDF, unknown words weighing most) that an entry must
 * match. Measured with `npm run eval:memory`: lower admits near-misses for unanswerable questions,
 * higher drops answers phrased in other words.
 */
export const DEFAULT_FLOOR = 0.4;

const STOPWORDS = new Set(
  ('a an the and or but of to in on at for by with from into onto about as is are was were be been being am do does did ' +
    'have has had i me my you your we our us they them their he she it its this that these those there here what which who whom ' +
    'whose when where why how can could should would will shall may might must any some all each every if then than so too very ' +
    'just also not no yes please tell know remember recall find robot again ever still last ago thing things get got')
    .split(' '),
);

/** Light stemming: plural, -ing, -ed, -er, -ly, final e. Enough for robot notes; not Porter. */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && /(?:ss|sh|ch|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  for (const suffix of ['ing', 'ed', 'er', 'ly']) {
    if (w.length > suffix.length + 3 && w.endsWith(suffix)) {
      w = w.slice(0, -suffix.length);
      if (/([b-df-hj-np-tv-z])\1$/.test(w) && !/(?:ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
      break;
    }
  }
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
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
  readonly entry: Entry;
  readonly score: number;
  /** Share of the query's IDF weight this entry matched (0–1). */
  readonly coverage: number;
}

export interface RecallOptions {
  readonly limit?: number;
  readonly floor?: number;
}

/** Ranks `entries` for `query`, best first; [] when nothing clears the floor. */
export function rank(entries: readonly Entry[], query: string, options: RecallOptions = {}): RecallHit[] {
  const limit = options.limit ?? 5;
  const floor = options.floor ?? DEFAULT_FLOOR;
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
  // A word no entry has weighs as much as the rarest word there is, not more: otherwise one
  // unknown word ("dock" in "where is the charging dock") would sink a good match on a small memory.
  const idf = new Map(q.map((t) => {
    const df = Math.max(1, docs.filter((d) => d.tf.has(t)).length);
    return [t, Math.log(1 + (n - df + 0.5) / (df + 0.5))];
  }));
  const total = [...idf.values()].reduce((s, v) => s + v, 0);
  const hits: RecallHit[] = [];
  for (const d of docs) {
    let score = 0;
    let matched = 0;
    for (const t of q) {
      const f = d.tf.get(t);
      if (f === undefined) continue;
      const w = idf.get(t) ?? 0;
      matched += w;
      score += (w * f * (K1 + 1)) / (f + K1 * (1 - B + (B * d.len) / avgLen));
    }
    const coverage = total > 0 ? matched / total : 0;
    if (score > 0 && coverage >= floor) hits.push({ entry: d.entry, score, coverage });
  }
  // Stable sort over newest-first docs: equal scores keep the newest on top.
  return hits.sort((a, b) => b.score - a.score).slice(0, limit);
}

/** The library call for recall on demand: one body's entries as committed by any process. */
export function recall(body: BodyEntries, query: string, options: RecallOptions = {}): RecallHit[] {
  return rank(body.entries(), query, options);
}
