/**
 * Recall by words and by meaning at once: BM25 (src/memory/recall.ts) and the cosine similarity
 * of sentence embeddings, fused by reciprocal rank fusion. RRF needs no common scale between a
 * BM25 score and a cosine, which differ by model; each list only says which entry it prefers.
 * Abstention is on the fused evidence: an entry may answer when its words clear BM25's floor or
 * its meaning clears the model's similarity floor (measured per model by `npm run eval:memory --
 * --calibrate`); when none does, recall says nothing, as it does by words alone. Pure and
 * synchronous: the vectors come in, hits go out.
 */
import type { Entry } from './entry.js';
import { foldHits, wordMatches, type RecallHit, type RecallOptions } from './recall.js';
import { newestFirst } from './rules.js';

/** RRF's constant: how flat the reward for rank is (60 in Cormack et al., and in most engines since). */
export const RRF_K = 60;
/** The similarity floor of a model nobody has calibrated (the reference agent-server's). */
export const DEFAULT_SIMILARITY_FLOOR = 0.35;
/** The share of the fused score that meaning carries (0.5: words and meaning count the same). */
export const DEFAULT_MEANING_WEIGHT = 0.5;

export interface FusionOptions extends RecallOptions {
  /** Cosine similarity an entry needs to answer by meaning alone. */
  readonly similarityFloor?: number;
  /** The share of the fused score that meaning carries, 0..1. */
  readonly weight?: number;
}

export interface FusedHit extends RecallHit {
  /** The cosine similarity of the entry to the question, when it has a vector. */
  readonly similarity?: number;
}

export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * Ranks `entries` for `query` by words and meaning; `vectors` holds the entries' vectors by id
 * (an entry without one is ranked by its words only) and `queryVector` the question's.
 */
export function fuse(entries: readonly Entry[], query: string, vectors: ReadonlyMap<string, Float32Array>, queryVector: Float32Array, options: FusionOptions = {}): FusedHit[] {
  const floor = options.similarityFloor ?? DEFAULT_SIMILARITY_FLOOR;
  const weight = Math.min(1, Math.max(0, options.weight ?? DEFAULT_MEANING_WEIGHT));
  const words = wordMatches(entries, query, options);
  const byWords = new Map(words.map((m) => [m.entry.id, m]));
  // Rank by words: stable over newest-first, so ties keep the newest ahead.
  const wordRank = new Map([...words].sort((a, b) => b.score - a.score).map((m, r) => [m.entry.id, r + 1]));
  const similarity = new Map<string, number>();
  for (const e of entries) {
    const v = vectors.get(e.id);
    if (v !== undefined) similarity.set(e.id, cosine(v, queryVector));
  }
  const meaningRank = new Map([...similarity].sort((a, b) => b[1] - a[1]).map(([id], r) => [id, r + 1]));
  const scored: Omit<FusedHit, 'count' | 'ids'>[] = [];
  // Newest first, as foldHits expects: the newest of identical entries stands for them.
  for (const entry of newestFirst(entries)) {
    const w = byWords.get(entry.id);
    const sim = similarity.get(entry.id);
    const answers = w?.clears === true || (sim !== undefined && sim >= floor);
    if (!answers) continue;
    const rw = wordRank.get(entry.id);
    const rm = meaningRank.get(entry.id);
    const score = (rw !== undefined ? (1 - weight) / (RRF_K + rw) : 0) + (rm !== undefined ? weight / (RRF_K + rm) : 0);
    scored.push({ entry, score, evidence: w?.evidence ?? 0, ...(sim !== undefined ? { similarity: sim } : {}) });
  }
  return foldHits(scored, options.limit ?? 5);
}
