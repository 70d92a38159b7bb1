/**
 * The memory store: what the CLI, runs (and later the service and the MCP server) open. One LMDB
 * environment under the memory directory, partitioned by body (`adapter:backend`): callers get a
 * BodyMemory for one body and cannot reach another's entries through it.
 *
 * Invariants, enforced here:
 * - Every open and close of the environment, in every process and thread, and every write
 *   transaction holds the store guard (src/memory/guard.ts), so no open overlaps a commit of
 *   another process: the LMDB that lmdb-js bundles loses a commit when one does
 *   (docs/lmdb-open-txnid-race.md). Writers serialise on the guard and lose nothing.
 * - Writes run in the writer worker (src/memory/writer-worker.ts), off the main thread, or for a
 *   one-shot command on the thread that opened the store (src/memory/inline-writer.ts, `writes:
 *   'inline'`), under the same rules; a write returns once it is committed and flushed to disk. A
 *   write that cannot have the guard within its bound fails with MemoryBusy and writes nothing,
 *   rather than stalling the caller.
 * - Reads run on the main thread against the same environment (lmdb-js shares one per process)
 *   and see every commit, this process's and others'.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { BodyKey } from '../bodies/body.js';
import { ensurePrivateDir } from '../config/paths.js';
import { logger } from '../log.js';
import type { Entry, Source } from './entry.js';
import { MemoryBusy, StoreError } from './errors.js';
import { StoreGuard, guardAddress } from './guard.js';
import type { EditResult, ImportResult } from './import.js';
import type { Shown } from './edit-shown.js';
import type { JsonlParse } from './jsonl.js';
import { DATA_FILE, openLmdbStore, type LmdbStore } from './lmdb-store.js';
import { InlineWriter } from './inline-writer.js';
import { pendingLegacyFiles } from './legacy.js';
import { PROMPT_EPISODES, PROMPT_NOTES, type PromptSelection } from './render.js';
import type { EpisodeInput, NoteInput, Plan } from './rules.js';
import { openAiEmbedder, type EmbeddingSettings } from './embedder.js';
import { Meaning, type SearchOptions, type SearchResult } from './meaning.js';
import { rank } from './recall.js';
import type { StoredVector } from './vectors.js';
import { MemoryWriter } from './writer.js';
import type { JobResults, StoreWriter, WriteJob } from './writer-jobs.js';
import type { Arrival } from './share/merge.js';
import type { Merged } from './share/merge-job.js';

export { DATA_FILE, LOCK_FILE } from './lmdb-store.js';
export { MemoryBusy, StoreError };

/** How long to wait for another process's hold on the store, by default. */
export const WAIT_MS = {
  /** Opening and closing: before a run starts, or as a command begins. */
  open: 10_000,
  /** A write from the CLI, where a person waits for the answer. */
  write: 15_000,
} as const;

export interface WriteOptions {
  /** How long this write may wait for the store guard before it is MemoryBusy. */
  readonly waitMs?: number;
}

export interface BodyMemory {
  readonly key: BodyKey;
  /** This body's entries, newest first, as committed by any process up to now. */
  entries(): Entry[];
  /**
   * The notes and episodes for the prompt: the newest, read through the order index (no full
   * scan); with `task` and a vector of it stored under the configured model, the notes ranked by
   * it (src/memory/task-ranking.ts), still without a call to the embedding server.
   */
  promptSelection(notes?: number, episodes?: number, task?: string): PromptSelection;
  /** Rejects with MemoryRefusal for text the rules refuse, StoreError (MemoryBusy) when the write fails. */
  remember(input: NoteInput, options?: WriteOptions): Promise<Plan>;
  addEpisode(input: EpisodeInput, options?: WriteOptions): Promise<Plan>;
  forget(id: string, options?: WriteOptions): Promise<Entry | undefined>;
  /** Removes every entry of this body; resolves to how many. */
  clear(options?: WriteOptions): Promise<number>;
  /** Adds parsed JSONL lines in one transaction (`memory import`). */
  importLines(parse: JsonlParse, source?: Source, options?: WriteOptions): Promise<ImportResult>;
  /** Writes back an edited JSONL of what the editor was `shown` in one transaction (`memory edit`). */
  applyEdit(shown: Shown, parse: JsonlParse, options?: WriteOptions): Promise<EditResult>;
  /**
   * Recall on demand, the one path every front door takes: BM25 alone without embeddings (exactly
   * src/memory/recall.ts's rank), words and meaning fused with them (src/memory/meaning.ts).
   */
  search(query: string, options?: SearchOptions): Promise<SearchResult>;
  /** The stored vectors of this body's entries, by entry id. */
  vectors(): Map<string, StoredVector>;
  /** Merges entries and forgets other quackds published (src/memory/share), in one transaction. */
  merge(arrivals: readonly Arrival[], options?: WriteOptions): Promise<Merged[]>;
  /** Embeds every entry that lacks a vector for the configured model, in batches; how many were saved (0 without embeddings). */
  embedPending(): Promise<number>;
}

export interface MemoryStore {
  readonly dir: string;
  readonly readOnly: boolean;
  /** Why writes fail for good now (the writer thread died: reopening the store is the cure), or undefined. */
  readonly writeFailure: string | undefined;
  body(key: BodyKey): BodyMemory;
  /** Every body with at least one entry. */
  bodies(): BodyKey[];
  /** Entries that fail the schema or disagree with the order index (doctor reports them; readers skip them). */
  invalid(): { key: string; problem: string }[];
  /** LMDB's own figures (page size, pages, last transaction id) for doctor. */
  stats(): Record<string, unknown>;
  metaGet(key: string): unknown;
  /** The embedding server and model recall uses, when one is configured. */
  readonly embeddings: { readonly server: string; readonly model: string; readonly dims?: number | undefined } | undefined;
  /** Imports pending legacy per-body files (src/memory/legacy.ts); one warning per file with bad lines. */
  importLegacy(): Promise<string[]>;
  /** After a run: embeds its task text in the background, once per text and model, for later runs' prompts (nothing without embeddings). */
  embedTask(task: string): void;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Open without writing: no directory or file is created, nothing changes on disk, no worker starts. */
  readonly readOnly?: boolean;
  /**
   * Where writes run: 'worker' (the default), the process's writer worker, so a slow commit never
   * holds up the thread's other work (a service's sockets, MQTT, its runs); 'inline', this thread,
   * for a one-shot command with nothing else to keep going, which then starts no worker.
   */
  readonly writes?: 'worker' | 'inline';
  readonly now?: () => Date;
  /** The default bound of this store's writes (WAIT_MS.write). */
  readonly writeWaitMs?: number;
  /** How long opening and closing may wait for the guard (WAIT_MS.open). */
  readonly openWaitMs?: number;
  /** Recall by meaning too (the config's `memory.embeddings`): entries are embedded after they are saved. */
  readonly embeddings?: EmbeddingSettings | undefined;
}

/** True when a store exists in `dir` (a read-only open would find something). */
export function storeExists(dir: string): boolean {
  return existsSync(join(dir, DATA_FILE));
}

/** Opens (creating unless read-only) the store in `dir`. Rejects with StoreError, never crashes. */
export async function openMemoryStore(dir: string, options: OpenOptions = {}): Promise<MemoryStore> {
  const readOnly = options.readOnly === true;
  const openWaitMs = options.openWaitMs ?? WAIT_MS.open;
  if (readOnly) {
    if (existsSync(dir) && !statSync(dir).isDirectory()) throw new StoreError(`${dir} is not a directory`);
    if (!storeExists(dir)) throw new StoreError(`no memory store in ${dir} yet`);
  } else {
    try {
      ensurePrivateDir(dir);
    } catch (err) {
      throw new StoreError((err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '');
    }
  }
  logger('memory').debug({ dir, readOnly }, 'memory store: opening');
  const guard = new StoreGuard(guardAddress(dir));
  const engine = await guard.hold(openWaitMs, () => openLmdbStore(dir, { readOnly, ...(options.now !== undefined ? { now: options.now } : {}) }));
  let writer: StoreWriter | undefined;
  if (!readOnly) {
    try {
      writer = options.writes === 'inline' ? new InlineWriter(engine) : await MemoryWriter.open(dir, openWaitMs);
    } catch (err) {
      await guard.hold(openWaitMs, () => engine.close()).catch(() => undefined);
      throw err;
    }
  }
  const store = new GuardedStore(engine, guard, writer, { now: options.now ?? (() => new Date()), writeWaitMs: options.writeWaitMs ?? WAIT_MS.write, openWaitMs });
  if (options.embeddings !== undefined) store.useMeaning(options.embeddings);
  return store;
}

interface Settings {
  readonly now: () => Date;
  readonly writeWaitMs: number;
  readonly openWaitMs: number;
}

/** Writes after which the body has entries to embed. */
const EMBEDS_AFTER: ReadonlySet<WriteJob['kind']> = new Set(['remember', 'episode', 'import', 'edit', 'merge']);

class GuardedStore implements MemoryStore {
  private closing: Promise<void> | undefined;
  private meaning: Meaning | undefined;

  constructor(
    private readonly engine: LmdbStore,
    private readonly guard: StoreGuard,
    private readonly writer: StoreWriter | undefined,
    private readonly settings: Settings,
  ) {}

  get dir(): string {
    return this.engine.dir;
  }

  get readOnly(): boolean {
    return this.engine.readOnly;
  }

  get writeFailure(): string | undefined {
    return this.writer?.failure;
  }

  get embeddings(): MemoryStore['embeddings'] {
    const e = this.meaning?.embedder;
    return e === undefined ? undefined : { server: e.server, model: e.model, dims: e.dims };
  }

  useMeaning(settings: EmbeddingSettings): void {
    const writer = this.writer;
    const save = writer === undefined ? undefined : (body: BodyKey, items: { id: string; vector: StoredVector }[]) => this.write({ kind: 'vectors', body, items });
    // Past the closing check: closing waits a moment for a task's vector before the writer stops.
    const saveTask = writer === undefined ? undefined : (key: string, vector: StoredVector) => writer.run({ kind: 'task-vector', key, vector }, this.settings.now(), this.settings.writeWaitMs);
    this.meaning = new Meaning(openAiEmbedder(settings), settings, save, saveTask);
  }

  body(key: BodyKey): BodyMemory {
    const read = this.engine.body(key);
    const write = <K extends WriteJob['kind']>(job: Extract<WriteJob, { kind: K }>, options?: WriteOptions) => this.written(this.write<K>(job, options), key, job.kind);
    const memory: BodyMemory = {
      key,
      entries: () => read.entries(),
      promptSelection: (notes = PROMPT_NOTES, episodes = PROMPT_EPISODES, task) => {
        const selection = read.promptSelection(notes, episodes);
        const meaning = this.meaning;
        const ranked = task !== undefined && meaning !== undefined ? meaning.notesForTask(vectorBody, task, this.engine.metaGet(meaning.taskKey(task)), notes) : undefined;
        return ranked !== undefined ? { ...selection, notes: ranked, byTask: true } : selection;
      },
      remember: (input, options) => write({ kind: 'remember', body: key, input }, options),
      addEpisode: (input, options) => write({ kind: 'episode', body: key, input }, options),
      forget: (id, options) => write({ kind: 'forget', body: key, id }, options),
      clear: (options) => write({ kind: 'clear', body: key }, options),
      importLines: (parse, source = 'human', options) => write({ kind: 'import', body: key, parse, source }, options),
      applyEdit: (shown, parse, options) => write({ kind: 'edit', body: key, shown, parse }, options),
      merge: (arrivals, options) => write({ kind: 'merge', body: key, arrivals }, options),
      search: (query, options = {}) => this.meaning?.search(vectorBody, query, options) ?? Promise.resolve({ hits: rank(read.entries(), query, options) }),
      vectors: () => read.vectors(),
      embedPending: () => this.meaning?.backfill(vectorBody) ?? Promise.resolve(0),
    };
    const vectorBody = { key, entries: () => read.entries(), vectors: () => read.vectors() };
    return memory;
  }

  bodies(): BodyKey[] {
    return this.engine.bodies();
  }

  invalid(): { key: string; problem: string }[] {
    return this.engine.invalid();
  }

  stats(): Record<string, unknown> {
    return this.engine.stats();
  }

  metaGet(key: string): unknown {
    return this.engine.metaGet(key);
  }

  importLegacy(): Promise<string[]> {
    // Most opens find none: no transaction (and no flush to disk) for nothing.
    if (pendingLegacyFiles(this.dir).length === 0) return Promise.resolve([]);
    return this.write({ kind: 'legacy' });
  }

  embedTask(task: string): void {
    const meaning = this.meaning;
    if (meaning === undefined || this.closing !== undefined) return;
    meaning.embedTask(task, this.engine.metaGet(meaning.taskKey(task)) !== undefined);
  }

  /** After a write that adds entries, they are embedded in the background (never awaited by the write). */
  private written<T>(result: Promise<T>, key: BodyKey, kind: WriteJob['kind']): Promise<T> {
    if (this.meaning === undefined || !EMBEDS_AFTER.has(kind)) return result;
    return result.then((value) => {
      if (this.closing === undefined) this.meaning?.schedule({ key, entries: () => this.engine.body(key).entries(), vectors: () => this.engine.body(key).vectors() });
      return value;
    });
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      // An embedding in flight is cut short: its entries are embedded at a later open.
      await this.meaning?.close();
      await this.writer?.close(this.settings.openWaitMs);
      await this.guard.hold(this.settings.openWaitMs, () => this.engine.close());
    })();
    return this.closing;
  }

  private write<K extends WriteJob['kind']>(job: Extract<WriteJob, { kind: K }>, options?: WriteOptions): Promise<JobResults[K]> {
    if (this.writer === undefined) return Promise.reject(new StoreError('the memory store was opened read-only'));
    if (this.closing !== undefined) return Promise.reject(new StoreError('the memory store is closed'));
    return this.writer.run(job, this.settings.now(), options?.waitMs ?? this.settings.writeWaitMs);
  }
}
