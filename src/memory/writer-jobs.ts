/**
 * What the writer worker can be asked to do, as plain data that crosses postMessage, and how it
 * does each one against the engine inside one write transaction. Every write path (the pilot's
 * `remember`, episodes, the memory CLI, import, edit, the legacy files) is one of these jobs, so
 * they all obey the same rules in the same transaction discipline.
 */
import type { BodyKey } from '../bodies/body.js';
import type { Entry, Source } from './entry.js';
import { applyEdit, importLines, type EditResult, type ImportResult } from './import.js';
import type { JsonlParse } from './jsonl.js';
import type { Shown } from './edit-shown.js';
import { importLegacy } from './legacy.js';
import type { LmdbStore } from './lmdb-store.js';
import type { EpisodeInput, NoteInput, Plan } from './rules.js';
import type { StoredVector } from './vectors.js';
import type { Arrival } from './share/merge.js';
import { mergeArrivals, type Merged } from './share/merge-job.js';

export type WriteJob =
  | { readonly kind: 'remember'; readonly body: BodyKey; readonly input: NoteInput }
  | { readonly kind: 'episode'; readonly body: BodyKey; readonly input: EpisodeInput }
  | { readonly kind: 'forget'; readonly body: BodyKey; readonly id: string }
  | { readonly kind: 'clear'; readonly body: BodyKey }
  | { readonly kind: 'import'; readonly body: BodyKey; readonly parse: JsonlParse; readonly source: Source }
  | { readonly kind: 'edit'; readonly body: BodyKey; readonly shown: Shown; readonly parse: JsonlParse }
  | { readonly kind: 'legacy' }
  | { readonly kind: 'vectors'; readonly body: BodyKey; readonly items: readonly { id: string; vector: StoredVector }[] }
  | { readonly kind: 'task-vector'; readonly key: string; readonly vector: StoredVector }
  | { readonly kind: 'merge'; readonly body: BodyKey; readonly arrivals: readonly Arrival[] };

/** What each job returns. */
export interface JobResults {
  remember: Plan;
  episode: Plan;
  forget: Entry | undefined;
  clear: number;
  import: ImportResult;
  edit: EditResult;
  legacy: string[];
  vectors: number;
  'task-vector': undefined;
  merge: Merged[];
}

/**
 * Where a store's writes run: the process's writer worker (writer.ts), or the thread that opened
 * the store, for a one-shot command (inline-writer.ts). Either runs one job at a time, each in one
 * transaction under the store guard, and rejects with MemoryBusy when the guard was not had
 * within `waitMs`.
 */
export interface StoreWriter {
  run<K extends WriteJob['kind']>(job: Extract<WriteJob, { kind: K }>, now: Date, waitMs: number): Promise<JobResults[K]>;
  /** Finishes the queued jobs and lets go of the store. */
  close(waitMs: number): Promise<void>;
  /** Why a writer of its own thread stopped for good; undefined while it writes (and for one on the caller's thread). */
  readonly failure?: string | undefined;
}

/** Runs one job; the caller has the transaction open, so nested batches join it. */
export function runJob(store: LmdbStore, job: WriteJob, now: string): JobResults[WriteJob['kind']] {
  switch (job.kind) {
    case 'remember':
      return store.body(job.body).remember(job.input);
    case 'episode':
      return store.body(job.body).addEpisode(job.input);
    case 'forget':
      return store.body(job.body).forget(job.id);
    case 'clear':
      return store.body(job.body).clear();
    case 'import':
      return importLines(store.body(job.body), job.parse, job.source);
    case 'edit':
      return applyEdit(store.body(job.body), job.shown, job.parse, () => now);
    case 'legacy':
      return importLegacy(store);
    case 'vectors':
      return store.body(job.body).putVectors(job.items);
    case 'task-vector':
      store.metaPut(job.key, job.vector);
      return undefined;
    case 'merge':
      return store.body(job.body).batch((tx) => mergeArrivals(tx, job.arrivals));
  }
}

/** A job's shared state word: the main thread and the worker agree on whether it may still run. */
export const JOB_PENDING = 0;
/** The worker holds the guard and has begun the transaction: it will commit or fail, not vanish. */
export const JOB_APPLYING = 1;
/** The caller gave up waiting ("memory busy"): the worker must not write it. */
export const JOB_ABANDONED = 2;

export type JobReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: { readonly kind: 'refusal' | 'store' | 'busy'; readonly message: string; readonly code?: string; readonly waitedMs?: number } };
