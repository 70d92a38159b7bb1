/**
 * The prompt's notes ranked by the run's task, not by age alone. After a run the duck's task text
 * is embedded (once per text and model) and its vector kept in the store's meta database; a later
 * run of the same task ranks its notes by the fusion recall uses (src/memory/fusion.ts: BM25 on
 * the task text, cosine on the stored vectors) without a call to the embedding server at its
 * start. Notes that answer come first, by fused score; the rest fill the block newest first, so a
 * run still sees what was learnt last. Without a stored vector the block is newest first, as it
 * was: BM25 alone against a whole duck's text would favour whichever notes share its strategy's
 * words, run after run, and push new notes out.
 */
import type { Entry } from './entry.js';
import { fuse } from './fusion.js';
import { decodeVector, looksLikeVector, textHash, type VectorModel } from './vectors.js';

/** The meta key of `task`'s vector under `model`: `task-vector:<model>[/<dims>]:<hash>`. */
export function taskVectorKey(task: string, model: VectorModel): string {
  return `task-vector:${model.model}${model.dims !== undefined ? `/${model.dims}` : ''}:${textHash(task)}`;
}

/** The stored vector of `task` under `model`, when one was stored and is whole. */
export function storedTaskVector(value: unknown, task: string, model: VectorModel): Float32Array | undefined {
  if (!looksLikeVector(value)) return undefined;
  if (value.model !== model.model || value.hash !== textHash(task) || (model.dims !== undefined && value.dims !== model.dims)) return undefined;
  const v = decodeVector(value.data);
  return v.length === value.dims && v.length > 0 ? v : undefined;
}

export interface TaskRanking {
  readonly similarityFloor: number;
  readonly weight: number;
}

/**
 * Up to `limit` of `notes` (newest first) for the prompt: those whose words or meaning answer
 * `task`, best first (identical notes once), then the others newest first. `vectors` holds the
 * notes' current vectors by id; a note without one ranks by its words.
 */
export function notesForTask(notes: readonly Entry[], task: string, taskVector: Float32Array, vectors: ReadonlyMap<string, Float32Array>, limit: number, ranking: TaskRanking): Entry[] {
  const hits = fuse(notes, task, vectors, taskVector, { limit, similarityFloor: ranking.similarityFloor, weight: ranking.weight });
  const taken = new Set(hits.flatMap((h) => h.ids));
  return [...hits.map((h) => h.entry), ...notes.filter((n) => !taken.has(n.id))].slice(0, limit);
}
