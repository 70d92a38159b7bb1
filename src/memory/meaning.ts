/**
 * Memory's recall by meaning, on the main thread of whoever holds the store: the one search every
 * front door uses (the pilot's `recall`, `memory search`, MCP's robot_recall, the eval), and the
 * backfill that gives entries their vectors. The HTTP calls run here, not in the writer worker,
 * because the secret check's list of the keys this process uses (src/secrets.ts) lives on this
 * thread; the vectors are written by the writer, off it. Nothing here fails or waits up a write:
 * an entry is saved first, embedded after, and when the server is down it is embedded later.
 */
import type { BodyKey } from '../bodies/body.js';
import { logger } from '../log.js';
import { EMBED_BATCH, EmbeddingError, type Embedder, type EmbeddingSettings } from './embedder.js';
import type { Entry } from './entry.js';
import { fuse, type FusedHit } from './fusion.js';
import { rank } from './recall.js';
import { newestFirst } from './rules.js';
import { secretReason } from './secret-check.js';
import { notesForTask, storedTaskVector, taskVectorKey } from './task-ranking.js';
import { current, decodeVector, embeddingText, encodeVector, textHash, type StoredVector } from './vectors.js';

export interface SearchOptions {
  readonly limit?: number;
}

/** How a search went by meaning: used, or why not (words alone answered). */
export interface MeaningUse {
  /** The embedding server the question (and any entry not yet embedded) was sent to. */
  readonly server: string;
  readonly model: string;
  readonly used: boolean;
  readonly problem?: string;
}

export interface SearchResult {
  readonly hits: FusedHit[];
  /** Absent when no embedding server is configured. */
  readonly meaning?: MeaningUse;
}

/** What meaning needs of a store's body: its entries, their vectors, and a way to save more. */
export interface VectorBody {
  readonly key: BodyKey;
  entries(): Entry[];
  vectors(): Map<string, StoredVector>;
}

/** Saves vectors through the store's writer; undefined for a read-only store. */
export type SaveVectors = ((body: BodyKey, items: { id: string; vector: StoredVector }[]) => Promise<number>) | undefined;

/** Saves a task's vector under its meta key, even while the store closes (its writer is still open then). */
export type SaveTaskVector = (key: string, vector: StoredVector) => Promise<unknown>;

/**
 * How long closing waits for a task's vector still with the server: a loopback or LAN server
 * answers one text in tens of milliseconds; a hung one costs the exit no more than this.
 */
export const TASK_GRACE_MS = 500;

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

/** Entries without a vector of their current text under `embedder`'s model, newest first; never one that looks like a secret. */
function unembedded(body: VectorBody, embedder: Embedder): { entries: Entry[]; vectors: Map<string, Float32Array> } {
  const stored = body.vectors();
  const vectors = new Map<string, Float32Array>();
  const entries: Entry[] = [];
  for (const e of newestFirst(body.entries())) {
    const v = stored.get(e.id);
    if (current(v, e, embedder)) vectors.set(e.id, decodeVector(v.data));
    else if (secretReason(embeddingText(e)) === undefined) entries.push(e);
  }
  return { entries, vectors };
}

function stored(e: Entry, v: Float32Array, model: string): { id: string; vector: StoredVector } {
  return { id: e.id, vector: { model, dims: v.length, hash: textHash(embeddingText(e)), data: encodeVector(v) } };
}

export class Meaning {
  private readonly running = new Map<BodyKey, Promise<number>>();
  private readonly again = new Set<BodyKey>();
  private readonly aborter = new AbortController();
  private readonly tasks = new Set<Promise<void>>();

  constructor(
    readonly embedder: Embedder,
    private readonly settings: Pick<EmbeddingSettings, 'floor' | 'weight' | 'timeoutMs'>,
    private readonly save: SaveVectors,
    private readonly saveTask?: SaveTaskVector,
  ) {}

  /** The meta key `task`'s vector is kept under for this model. */
  taskKey(task: string): string {
    return taskVectorKey(task, this.embedder);
  }

  /**
   * Embeds `task` in the background and keeps its vector for later runs' prompts; nothing when
   * `known` (stored already), when the store is read-only, or when the text looks like a secret
   * (the embedder sends none). A failure is a debug line: the next run's block is newest first.
   */
  embedTask(task: string, known: boolean): void {
    const saveTask = this.saveTask;
    if (known || saveTask === undefined || this.aborter.signal.aborted || task.trim() === '') return;
    const model = this.embedder.model;
    const run: Promise<void> = this.embedder
      .embed([task], AbortSignal.any([this.aborter.signal, AbortSignal.timeout(this.settings.timeoutMs)]))
      .then(async ([v]) => {
        if (v !== undefined) await saveTask(this.taskKey(task), { model, dims: v.length, hash: textHash(task), data: encodeVector(v) });
      })
      .catch((err: unknown) => logger('memory').debug({ err: errorText(err), server: this.embedder.server }, 'task not embedded'))
      .finally(() => this.tasks.delete(run));
    this.tasks.add(run);
  }

  /**
   * `body`'s notes for the prompt ranked by `task` (src/memory/task-ranking.ts), from what the
   * store holds (`stored`: the meta value under taskKey): no call to the server. Undefined when
   * no vector of this task under this model is stored.
   */
  notesForTask(body: VectorBody, task: string, stored: unknown, limit: number): Entry[] | undefined {
    const taskVector = storedTaskVector(stored, task, this.embedder);
    if (taskVector === undefined) return undefined;
    const notes = body.entries().filter((e) => e.kind === 'note');
    const all = body.vectors();
    const vectors = new Map<string, Float32Array>();
    for (const n of notes) {
      const v = all.get(n.id);
      if (current(v, n, this.embedder)) vectors.set(n.id, decodeVector(v.data));
    }
    return notesForTask(notes, task, taskVector, vectors, limit, { similarityFloor: this.settings.floor, weight: this.settings.weight });
  }

  /** Embeds `body`'s entries that lack a vector, in batches, in the background; one run per body at a time. */
  schedule(body: VectorBody): void {
    if (this.save === undefined || this.aborter.signal.aborted) return;
    if (this.running.has(body.key)) {
      this.again.add(body.key);
      return;
    }
    const run = this.backfill(body)
      .catch((err: unknown) => {
        // The server is down or slow: the entries wait for the next write, run or search.
        logger('memory').debug({ err: errorText(err), server: this.embedder.server }, 'embedding backfill stopped');
        return 0;
      })
      .finally(() => {
        this.running.delete(body.key);
        if (this.again.delete(body.key)) this.schedule(body);
      });
    this.running.set(body.key, run);
  }

  /** Embeds and saves every entry of `body` that lacks a vector; resolves to how many were saved. */
  async backfill(body: VectorBody): Promise<number> {
    let saved = 0;
    const { entries } = unembedded(body, this.embedder);
    for (let at = 0; at < entries.length; at += EMBED_BATCH) {
      if (this.aborter.signal.aborted || this.save === undefined) break;
      const batch = entries.slice(at, at + EMBED_BATCH);
      const got = await this.embedder.embed(batch.map(embeddingText), this.aborter.signal);
      const items = batch.flatMap((e, i) => {
        const v = got[i];
        return v !== undefined ? [stored(e, v, this.embedder.model)] : [];
      });
      if (items.length > 0) saved += await this.save(body.key, items);
    }
    return saved;
  }

  /** Waits for the background work to end, cutting short any call in flight (a task's vector gets TASK_GRACE_MS to land). */
  async close(): Promise<void> {
    if (this.tasks.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(this.tasks), new Promise((resolve) => (timer = setTimeout(resolve, TASK_GRACE_MS)))]);
      clearTimeout(timer);
    }
    this.aborter.abort();
    await Promise.all([...this.running.values(), ...this.tasks]);
  }

  /**
   * Words and meaning fused; words alone when the server fails, or when the question looks like a
   * secret (it is then not sent). The question goes with up to a batch of entries not yet
   * embedded, newest first; the rest are embedded in the background and rank by words meanwhile.
   */
  async search(body: VectorBody, query: string, options: SearchOptions): Promise<SearchResult> {
    const entries = body.entries();
    const info = { server: this.embedder.server, model: this.embedder.model };
    const words = (problem: string): SearchResult => ({ hits: rank(entries, query, options), meaning: { ...info, used: false, problem } });
    if (secretReason(query) !== undefined) return words('the question looks like a secret: not sent to the embedding server');
    const { entries: missing, vectors } = unembedded(body, this.embedder);
    const now = missing.slice(0, EMBED_BATCH - 1);
    let got: (Float32Array | undefined)[];
    try {
      got = await this.embedder.embed([query, ...now.map(embeddingText)], AbortSignal.any([this.aborter.signal, AbortSignal.timeout(this.settings.timeoutMs)]));
    } catch (err) {
      return words(err instanceof EmbeddingError ? err.message : errorText(err));
    }
    const [queryVector, ...fresh] = got;
    if (queryVector === undefined) return words('the embedding server gave no vector for the question');
    const items: { id: string; vector: StoredVector }[] = [];
    for (const [i, e] of now.entries()) {
      const v = fresh[i];
      if (v === undefined) continue;
      vectors.set(e.id, v);
      items.push(stored(e, v, this.embedder.model));
    }
    // Saved for the next question; a failed save only means they are embedded again.
    if (items.length > 0) void this.save?.(body.key, items).catch(() => undefined);
    if (missing.length > now.length) this.schedule(body);
    const hits = fuse(entries, query, vectors, queryVector, { ...options, similarityFloor: this.settings.floor, weight: this.settings.weight });
    return { hits, meaning: { ...info, used: true } };
  }
}
