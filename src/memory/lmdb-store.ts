/**
 * The LMDB engine under the memory store: one environment under the memory directory,
 * partitioned by body (`adapter:backend`) inside the store on every read and write. Synchronous,
 * for one thread. Nothing outside src/memory uses it: src/memory/store.ts is the store, which
 * opens and closes this engine only while holding the store guard (src/memory/guard.ts) and runs
 * its writes in the writer worker (src/memory/writer-worker.ts).
 *
 * Every write is one synchronous LMDB transaction that reads the body's entries, applies the
 * rules (src/memory/rules.ts) and commits with a flush to disk before returning. lmdb-js keeps a
 * read snapshot until the event loop turns (DEPENDENCIES.md gotcha 9); reads reset it first so
 * they see other processes' and threads' commits.
 */
import { chmodSync, existsSync, statfsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { open, type Database, type RootDatabase } from './lmdb.js';
import type { BodyKey } from '../bodies/body.js';
import { ensurePrivateDir } from '../config/paths.js';
import { StoreError } from './errors.js';
import { MemoryRefusal, entrySchema, looksLikeEntry, type Entry } from './entry.js';
import { lmdbFileProblem } from './header-check.js';
import { looksLikeVector, type StoredVector } from './vectors.js';
import { EPISODE_WINDOW, PROMPT_EPISODES, PROMPT_NOTES, distinct, type PromptSelection } from './render.js';
import { newestFirst, planEpisode, planNote, type Carried, type EpisodeInput, type NoteInput, type Plan } from './rules.js';

export const DATA_FILE = 'memory.mdb';
export const LOCK_FILE = 'memory.mdb-lock';

export { StoreError };

export interface LmdbBody {
  readonly key: BodyKey;
  /** This body's entries, newest first, as committed by any process up to now. */
  entries(): Entry[];
  /** The newest notes and episodes for the prompt, read through the order index (no full scan). */
  promptSelection(notes?: number, episodes?: number): PromptSelection;
  /** Throws MemoryRefusal for text the rules refuse, StoreError when the write fails. */
  remember(input: NoteInput, carried?: Carried): Plan;
  addEpisode(input: EpisodeInput, carried?: Carried): Plan;
  forget(id: string): Entry | undefined;
  /** Removes every entry of this body; returns how many. */
  clear(): number;
  /** Runs `work` in one write transaction over this body (import and edit). */
  batch<T>(work: (tx: BodyTx) => T): T;
  /** The stored vectors of this body's entries, by entry id (src/memory/vectors.ts). */
  vectors(): Map<string, StoredVector>;
  /** Stores vectors beside entries that still exist; returns how many were stored. */
  putVectors(items: readonly { id: string; vector: StoredVector }[]): number;
}

/** What an import or edit may do inside one transaction; each call sees the previous ones. */
export interface BodyTx {
  entries(): Entry[];
  /** One entry by id, without a scan (import looks up every line). */
  get(id: string): Entry | undefined;
  remember(input: NoteInput, carried?: Carried): Plan;
  addEpisode(input: EpisodeInput, carried?: Carried): Plan;
  put(entry: Entry): void;
  remove(id: string): boolean;
}

export interface LmdbStore {
  readonly dir: string;
  readonly readOnly: boolean;
  body(key: BodyKey): LmdbBody;
  /** Every body with at least one entry. */
  bodies(): BodyKey[];
  /** Entries that fail the schema or disagree with the order index (doctor reports them; readers skip them). */
  invalid(): { key: string; problem: string }[];
  /** LMDB's own figures (page size, pages, last transaction id) for doctor. */
  stats(): Record<string, unknown>;
  metaGet(key: string): unknown;
  metaPut(key: string, value: unknown): void;
  /** Runs `work` in one write transaction (nested calls join it); the caller holds the store guard. */
  write<T>(work: () => T): T;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Open without writing: no directory or file is created, nothing changes on disk. */
  readonly readOnly?: boolean;
  readonly now?: () => Date;
}

const SEP = '\u0000';
const bodyPrefix = (body: string) => `${body}${SEP}`;
const entryKey = (body: string, id: string) => `${body}${SEP}${id}`;
/** The order index: per body and kind, by seq, so the prompt reads 25 entries, not 400. */
const orderPrefix = (body: string, kind: Entry['kind']) => `${body}${SEP}${kind === 'note' ? 'n' : 'e'}${SEP}`;
const orderKey = (e: Entry) => `${orderPrefix(e.body, e.kind)}${String(e.seq).padStart(12, '0')}`;

/** A stored entry's JSON, or undefined when it is damaged (not JSON, or not an entry). */
function decode(text: string | undefined): Entry | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return looksLikeEntry(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function describe(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.split('\n')[0] ?? msg;
}

/** True when a store exists in `dir` (a read-only open would find something). */
export function storeExists(dir: string): boolean {
  return existsSync(join(dir, DATA_FILE));
}

/** Room for the store to grow by a few commits' worth of pages. */
const MIN_FREE_BYTES = 1024 * 1024;

/**
 * Opens (creating unless read-only) the engine in `dir`. Throws StoreError, never crashes. The
 * caller holds the store guard: the open must not overlap another process's commit.
 */
export function openLmdbStore(dir: string, options: OpenOptions = {}): LmdbStore {
  const readOnly = options.readOnly === true;
  const path = join(dir, DATA_FILE);
  const problem = lmdbFileProblem(path, { readOnly });
  if (problem !== undefined) throw new StoreError(problem);
  let root: RootDatabase;
  try {
    if (!readOnly) {
      ensurePrivateDir(dir);
      // lmdb-js maps the file and dies with SIGBUS/SIGSEGV when the disk cannot back the pages it
      // touches; refuse to start a store on a (nearly) full disk instead.
      const fs = statfsSync(dir);
      if (fs.bavail * fs.bsize < MIN_FREE_BYTES) throw new StoreError(`the disk holding ${dir} is full (${Math.floor((fs.bavail * fs.bsize) / 1024)} KiB free)`);
    } else if (!existsSync(path)) throw new StoreError(`no memory store in ${dir} yet`);
    else if (!statSync(dir).isDirectory()) throw new StoreError(`${dir} is not a directory`);
    // lmdb-js creates its files with the process umask; memory is private, so 0600 from birth.
    // (Workers may not set it; the writer worker opens after the main thread has created them.)
    const umask = isMainThread ? process.umask(0o077) : undefined;
    try {
      // overlappingSync off: a commit then returns once flushed, at about a third of the cost of
      // lmdb-js's default (measured with bench/memory.ts); every process must open it the same way.
      root = open({ path, encoding: 'json', maxDbs: 4, readOnly, overlappingSync: false });
    } finally {
      if (umask !== undefined) process.umask(umask);
    }
  } catch (err) {
    if (err instanceof StoreError) throw err;
    throw new StoreError(describe(err));
  }
  try {
    if (!readOnly) for (const f of [DATA_FILE, LOCK_FILE]) chmodSync(join(dir, f), 0o600);
    // Entries are JSON text, decoded here rather than by lmdb-js, so one damaged value is skipped
    // (and named by doctor) instead of failing every read of the body.
    const entries = root.openDB<string, string>({ name: 'entries', encoding: 'string' }) as Database<string, string> | undefined;
    const meta = root.openDB<unknown, string>({ name: 'meta', encoding: 'json' }) as Database<unknown, string> | undefined;
    const order = root.openDB<string, string>({ name: 'order', encoding: 'string' }) as Database<string, string> | undefined;
    // Embeddings of entries, under the entry's key (a store from before them has none yet).
    const vectors = root.openDB<unknown, string>({ name: 'vectors', encoding: 'json' }) as Database<unknown, string> | undefined;
    return new LmdbMemoryStore(dir, readOnly, root, entries, meta, order, vectors, options.now ?? (() => new Date()));
  } catch (err) {
    void root.close();
    throw new StoreError(describe(err));
  }
}

class LmdbMemoryStore implements LmdbStore {
  private closed = false;
  private inWrite = false;
  /** The id of the write transaction in progress. */
  private txnId: number | undefined;
  /**
   * Whether the transaction in progress changed anything. LMDB does not use up the id of a write
   * transaction that changed nothing: the next commit, maybe another process's, takes it.
   */
  private changed = false;
  /**
   * A body's entries as of LMDB transaction `txn`, so back-to-back writes by one process skip
   * re-reading all of them. LMDB transaction ids rise by one per commit across all processes: a
   * write transaction numbered txn + 1 proves nobody committed in between; otherwise it re-reads.
   */
  private readonly cache = new Map<string, { txn: number; entries: Map<string, Entry> }>();

  constructor(
    readonly dir: string,
    readonly readOnly: boolean,
    private readonly root: RootDatabase,
    // A read-only open of a store that never had a write has no named databases yet.
    private readonly db: Database<string, string> | undefined,
    private readonly meta: Database<unknown, string> | undefined,
    private readonly order: Database<string, string> | undefined,
    private readonly vectorDb: Database<unknown, string> | undefined,
    private readonly now: () => Date,
  ) {}

  body(key: BodyKey): LmdbBody {
    return new LmdbBodyMemory(this, key);
  }

  bodies(): BodyKey[] {
    const out = new Set<BodyKey>();
    for (const key of this.keys()) out.add(key.slice(0, key.indexOf(SEP)) as BodyKey);
    return [...out].sort();
  }

  invalid(): { key: string; problem: string }[] {
    const out: { key: string; problem: string }[] = [];
    if (this.db === undefined) return out;
    this.fresh();
    for (const { key, value } of this.db.getRange({})) {
      if (typeof key !== 'string') continue;
      const [body, id] = key.split(SEP);
      let json: unknown;
      try {
        json = JSON.parse(value);
      } catch {
        out.push({ key: key.replace(SEP, ' '), problem: 'not readable (damaged JSON)' });
        continue;
      }
      const parsed = entrySchema.safeParse(json);
      if (!parsed.success) out.push({ key: key.replace(SEP, ' '), problem: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') });
      else if (parsed.data.body !== body || parsed.data.id !== id) out.push({ key: key.replace(SEP, ' '), problem: 'stored under the wrong key' });
      else if (this.order?.get(orderKey(parsed.data)) !== parsed.data.id) out.push({ key: key.replace(SEP, ' '), problem: 'missing from the order index' });
    }
    for (const { key, value } of this.order?.getRange({}) ?? []) {
      if (typeof key !== 'string') continue;
      const [body] = key.split(SEP);
      const raw = this.db.get(entryKey(body ?? '', value));
      const e = decode(raw);
      // An index line of a damaged entry is not a second problem: the entry was named above.
      if (raw === undefined || (e !== undefined && orderKey(e) !== key)) out.push({ key: key.replaceAll(SEP, ' '), problem: 'order index entry with no matching entry' });
    }
    return out;
  }

  stats(): Record<string, unknown> {
    this.fresh();
    const s = this.root.getStats() as Record<string, unknown>;
    const pick = ['pageSize', 'treeDepth', 'mapSize', 'lastPageNumber', 'lastTxnId', 'numReaders', 'maxReaders'];
    return Object.fromEntries(pick.filter((k) => k in s).map((k) => [k, s[k]]));
  }

  metaGet(key: string): unknown {
    this.fresh();
    return this.meta?.get(key);
  }

  metaPut(key: string, value: unknown): void {
    this.write(() => this.changedBy(this.meta?.putSync(key, value)));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.root.close();
  }

  // ---- used by LmdbBodyMemory -------------------------------------------------------------

  nowIso(): string {
    return this.now().toISOString();
  }

  fresh(): void {
    if (this.closed) throw new StoreError('the memory store is closed');
    // Inside a write transaction reads already see the latest commit.
    if (!this.inWrite) this.root.resetReadTxn();
  }

  keys(): string[] {
    if (this.db === undefined) return [];
    this.fresh();
    // A key some other tool wrote as a number or bytes is no body's; doctor names it.
    return [...this.db.getKeys({})].filter((k): k is string => typeof k === 'string');
  }

  /** One entry of `body` inside a write transaction, from the cache when it is current. */
  getEntry(body: string, id: string): Entry | undefined {
    const cached = this.txnId !== undefined ? this.cache.get(body) : undefined;
    if (cached?.txn === (this.txnId ?? 0) - 1) return cached.entries.get(id);
    return decode(this.db?.get(entryKey(body, id)));
  }

  read(body: string): Entry[] {
    if (this.db === undefined) return [];
    if (this.txnId !== undefined) {
      const cached = this.cache.get(body);
      if (cached?.txn === this.txnId - 1) return [...cached.entries.values()];
    }
    const out: Entry[] = [];
    for (const { value } of this.db.getRange({ start: bodyPrefix(body), end: `${body}\u0001` })) {
      // A damaged entry is skipped, not fatal: doctor names it, a run goes on without it.
      const e = decode(value);
      if (e !== undefined && e.body === body) out.push(e);
    }
    if (this.txnId !== undefined) this.cache.set(body, { txn: this.txnId - 1, entries: new Map(out.map((e) => [e.id, e])) });
    return out;
  }

  write<T>(work: () => T): T {
    if (this.readOnly) throw new StoreError('the memory store was opened read-only');
    if (this.closed) throw new StoreError('the memory store is closed');
    // lmdb-js turns a nested transactionSync into an async child transaction; join the outer one.
    if (this.inWrite) return work();
    this.inWrite = true;
    this.changed = false;
    let committed = false;
    try {
      const result = this.root.transactionSync(() => {
        this.txnId = this.root.getWriteTxnId();
        return work();
      });
      committed = true;
      return result;
    } catch (err) {
      if (err instanceof MemoryRefusal) throw err;
      throw new StoreError(describe(err));
    } finally {
      // After a commit that changed something the cache is the state as of our txn id; after one
      // that changed nothing it is still the state before it (that id is not used up); after an
      // abort it is void.
      const txn = this.txnId ?? 0;
      for (const [body, c] of this.cache) {
        if (committed && c.txn === txn - 1) c.txn = this.changed ? txn : txn - 1;
        else this.cache.delete(body);
      }
      this.inWrite = false;
      this.txnId = undefined;
    }
  }

  /** Notes what lmdb-js said of a put or a remove: true, the database changed (a put always does). */
  private changedBy<T>(result: T): T {
    if (result === true) this.changed = true;
    return result;
  }

  newest(body: string, kind: Entry['kind'], limit: number): { entries: Entry[]; total: number } {
    if (this.db === undefined || this.order === undefined) return { entries: [], total: 0 };
    const prefix = orderPrefix(body, kind);
    const range = { start: `${prefix}\uffff`, end: prefix, reverse: true };
    const entries: Entry[] = [];
    // A damaged entry is skipped and the next older one takes its place.
    for (const { value: id } of this.order.getRange(range)) {
      if (entries.length === limit) break;
      const e = decode(this.db.get(entryKey(body, id)));
      if (e !== undefined) entries.push(e);
    }
    return { entries, total: this.order.getCount(range) };
  }

  putEntry(entry: Entry): void {
    const key = entryKey(entry.body, entry.id);
    const old = decode(this.db?.get(key));
    if (old !== undefined) this.order?.removeSync(orderKey(old));
    this.changedBy(this.db?.putSync(key, JSON.stringify(entry)));
    this.order?.putSync(orderKey(entry), entry.id);
    this.cache.get(entry.body)?.entries.set(entry.id, entry);
  }

  removeEntry(body: string, id: string): boolean {
    const key = entryKey(body, id);
    const old = decode(this.db?.get(key));
    if (old !== undefined) this.changedBy(this.order?.removeSync(orderKey(old)));
    this.cache.get(body)?.entries.delete(id);
    this.changedBy(this.vectorDb?.removeSync(key));
    return this.changedBy(this.db?.removeSync(key) ?? false);
  }

  /** `body`'s vectors by entry id; a damaged one is skipped (it is embedded again). */
  vectorsOf(body: string): Map<string, StoredVector> {
    const out = new Map<string, StoredVector>();
    for (const { key, value } of this.vectorDb?.getRange({ start: bodyPrefix(body), end: `${body}\u0001` }) ?? []) {
      if (typeof key === 'string' && looksLikeVector(value)) out.set(key.slice(bodyPrefix(body).length), value);
    }
    return out;
  }

  putVector(body: string, id: string, vector: StoredVector): boolean {
    const key = entryKey(body, id);
    // An entry forgotten while its text was with the embedding server gets no orphan vector.
    if (this.db?.get(key) === undefined) return false;
    this.changedBy(this.vectorDb?.putSync(key, vector));
    return true;
  }

  /** Removes every key of `body`, damaged entries and their order index lines included. */
  removeBody(body: string): number {
    const range = { start: bodyPrefix(body), end: `${body}\u0001` };
    const keys = [...(this.db?.getKeys(range) ?? [])];
    for (const key of keys) this.changedBy(this.db?.removeSync(key));
    for (const key of [...(this.order?.getKeys(range) ?? [])]) this.changedBy(this.order?.removeSync(key));
    for (const key of [...(this.vectorDb?.getKeys(range) ?? [])]) this.changedBy(this.vectorDb?.removeSync(key));
    this.cache.delete(body);
    return keys.length;
  }
}

class LmdbBodyMemory implements LmdbBody {
  constructor(
    private readonly store: LmdbMemoryStore,
    readonly key: BodyKey,
  ) {}

  entries(): Entry[] {
    this.store.fresh();
    return newestFirst(this.store.read(this.key));
  }

  promptSelection(notes = PROMPT_NOTES, episodes = PROMPT_EPISODES): PromptSelection {
    this.store.fresh();
    const n = this.store.newest(this.key, 'note', notes);
    const e = this.store.newest(this.key, 'episode', Math.max(episodes, EPISODE_WINDOW));
    const { shown, copies } = distinct(e.entries, episodes);
    return { notes: n.entries, episodes: shown, totalNotes: n.total, totalEpisodes: e.total, copies };
  }

  remember(input: NoteInput, carried?: Carried): Plan {
    return this.batch((tx) => tx.remember(input, carried));
  }

  addEpisode(input: EpisodeInput, carried?: Carried): Plan {
    return this.batch((tx) => tx.addEpisode(input, carried));
  }

  forget(id: string): Entry | undefined {
    return this.batch((tx) => {
      const found = tx.entries().find((e) => e.id === id);
      if (found !== undefined) tx.remove(id);
      return found;
    });
  }

  clear(): number {
    return this.store.write(() => this.store.removeBody(this.key));
  }

  vectors(): Map<string, StoredVector> {
    this.store.fresh();
    return this.store.vectorsOf(this.key);
  }

  putVectors(items: readonly { id: string; vector: StoredVector }[]): number {
    return this.store.write(() => items.filter((i) => this.store.putVector(this.key, i.id, i.vector)).length);
  }

  batch<T>(work: (tx: BodyTx) => T): T {
    const { store, key } = this;
    return store.write(() => {
      const ctx = () => ({ body: key, now: store.nowIso() });
      const apply = (plan: Plan): Plan => {
        for (const id of plan.del) store.removeEntry(key, id);
        for (const e of plan.put) store.putEntry(e);
        return plan;
      };
      const tx: BodyTx = {
        // Inside the write transaction reads see the latest commit of every process.
        entries: () => newestFirst(store.read(key)),
        get: (id) => store.getEntry(key, id),
        remember: (input, carried) => apply(planNote(store.read(key), input, ctx(), carried)),
        addEpisode: (input, carried) => apply(planEpisode(store.read(key), input, ctx(), carried)),
        put: (entry) => store.putEntry({ ...entry, body: key }),
        remove: (id) => store.removeEntry(key, id),
      };
      return work(tx);
    });
  }
}
