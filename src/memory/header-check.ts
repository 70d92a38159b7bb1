/**
 * A look at the LMDB data file before lmdb-js maps it. The native code trusts every page it
 * reads: a file that is not LMDB (garbage, zeroes, truncated) or a damaged B-tree page takes the
 * process down with SIGSEGV, SIGBUS or an abort, and so does ANY failed open (lmdb-js deletes its
 * env twice on that path). A corrupt store must never crash a run, so we refuse every file LMDB's
 * open would refuse, then walk every tree the newest meta page names (the free list, the main
 * tree, each named database) and check what LMDB would follow blindly: page numbers, page kinds,
 * free-space bounds, node offsets and sizes, overflow runs, depth. It costs a read of the file and
 * a few milliseconds (bench/memory.ts). Damage inside a value is not structural and does not crash
 * LMDB; `quackd memory doctor` finds that by reading every entry in a separate process.
 */
import { accessSync, closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

const MAGIC = 0xbeefc0de;
/** The data version of the LMDB that lmdb-js 3 bundles (mdb.c MDB_DATA_VERSION). */
const DATA_VERSION = 2;
const P_BRANCH = 0x01;
const P_LEAF = 0x02;
const P_OVERFLOW = 0x04;
const P_META = 0x08;
/** The page-kind bits (with LEAF2 0x20 and SUBP 0x40); the other flag bits are transient bookkeeping. */
const P_KINDS = P_BRANCH | P_LEAF | P_OVERFLOW | P_META | 0x20 | 0x40;
/**
 * Page numbers, txnids and counts are size_t in the file: 8 bytes, or 4 where the native binding
 * is 32-bit (armv7, a Pi on a 32-bit OS), which moves every offset below.
 */
const W = process.arch === 'arm' || process.arch === 'ia32' ? 4 : 8;
const word = (buf: Buffer, at: number): bigint => (W === 8 ? buf.readBigUInt64LE(at) : BigInt(buf.readUInt32LE(at)));
const signedWord = (buf: Buffer, at: number): bigint => (W === 8 ? buf.readBigInt64LE(at) : BigInt(buf.readInt32LE(at)));
/** Page header: pgno (W), txnid (W), pad (2), flags (2), lower/upper (4) or overflow page count. */
const PAGE_HEADER = 2 * W + 8;
const FLAGS_AT = 2 * W + 2;
const LOWER_AT = 2 * W + 4;
const UPPER_AT = 2 * W + 6;
/** A named database's record (MDB_db: pad, flags, depth, then five size_t) in the main tree; its root page is the last field. */
const DB_RECORD = 8 + 5 * W;
const DB_ROOT_AT = 8 + 4 * W;
/** Offsets inside MDB_meta (magic, version, address, mapsize, the free and main DB records, last page, txnid), which follows the page header; psize and flags live in the free DB's record. */
const DBS = 8 + 2 * W;
const META = { magic: 0, version: 4, psize: DBS, flags: DBS + 4, freeRoot: DBS + DB_ROOT_AT, mainRoot: DBS + DB_RECORD + DB_ROOT_AT, lastPage: DBS + 2 * DB_RECORD, txnid: DBS + 2 * DB_RECORD + W } as const;
/** sizeof(MDB_metabuf): what mdb_env_read_header reads of each meta page; a shorter read refuses. */
const META_READ = PAGE_HEADER + META.txnid + 2 * W;
/** mdb.c MDB_ENCRYPT, kept in the meta's flags by an encrypted environment (quackd's is not). */
const MDB_ENCRYPT = 0x2000;
/** mdb_env_set_pagesize's bounds (mdb.c MAX_PAGESIZE is 64 KiB with PAGEBASE). */
const MIN_PAGESIZE = 256;
const MAX_PAGESIZE = 0x10000;
const NO_PAGE = W === 8 ? 0xffffffffffffffffn : 0xffffffffn;
/** A node: data size lo/hi (or a branch's child page), flags, key size (2 bytes each), then key and data. */
const NODE_HEADER = 8;
const F_BIGDATA = 0x01;
const F_SUBDATA = 0x02;
const F_DUPDATA = 0x04;
/** mdb.c CURSOR_STACK: no tree is deeper. */
const MAX_DEPTH = 32;

interface Meta {
  readonly psize: number;
  readonly txnid: bigint;
  readonly lastPage: bigint;
  readonly roots: readonly bigint[];
}

export interface FileCheckOptions {
  /** The open will be read-only: LMDB cannot then initialise an empty file. */
  readonly readOnly?: boolean;
}

function readAt(fd: number, offset: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  const n = readSync(fd, buf, 0, length, offset);
  return buf.subarray(0, n);
}

/**
 * Meta page `n` (at `offset`), or why LMDB cannot use it. mdb_env_read_header refuses a file whose
 * page 0 lacks P_META, the magic or the data version (low 16 bits), and a short read of either meta
 * page. lmdb-js's fork checks page 1 no further and adopts it when its txnid is higher, with
 * whatever page size it claims, so page 1 must pass the same tests.
 */
function parseMeta(page: Buffer, n: number): Meta | string {
  const bad = (why: string) => `the data file is not an LMDB database (meta page ${n}: ${why})`;
  if (page.length < META_READ) return 'the data file is truncated (a meta page is cut short)';
  if ((page.readUInt16LE(FLAGS_AT) & P_META) === 0) return bad('not a meta page');
  const m = PAGE_HEADER;
  if (page.readUInt32LE(m + META.magic) !== MAGIC) return bad('no LMDB magic number');
  const version = page.readUInt32LE(m + META.version) & 0xffff;
  if (version !== DATA_VERSION) return `the data file is LMDB data version ${version}, not ${DATA_VERSION} (meta page ${n})`;
  // mdb_env_open2: an environment opened without encryption refuses a file flagged as encrypted.
  if ((page.readUInt16LE(m + META.flags) & MDB_ENCRYPT) !== 0) return bad('flagged as encrypted');
  // The fork takes the page size unchecked (a zero divides by zero in mdb_env_open2).
  const psize = page.readUInt32LE(m + META.psize);
  if (psize < MIN_PAGESIZE || psize > MAX_PAGESIZE || (psize & (psize - 1)) !== 0) return bad(`page size ${psize}`);
  const lastPage = word(page, m + META.lastPage);
  if (lastPage < 1n) return bad('no pages in use');
  return {
    psize,
    txnid: word(page, m + META.txnid),
    lastPage,
    roots: [word(page, m + META.freeRoot), word(page, m + META.mainRoot)],
  };
}

/** The meta page LMDB opens the file at (`fd`, `size` bytes long), or why it refuses the file. */
function newestMeta(fd: number, size: number): Meta | string {
  const first = parseMeta(readAt(fd, 0, META_READ), 0);
  if (typeof first === 'string') return first;
  // mdb_env_read_header reads meta page 1 at page 0's page size.
  const second = parseMeta(readAt(fd, first.psize, META_READ), 1);
  if (typeof second === 'string') return second;
  if (second.psize !== first.psize) return 'the data file is not an LMDB database (its meta pages disagree on the page size)';
  // mdb_pick_meta: the higher txnid, page 0 on a tie.
  const meta = second.txnid > first.txnid ? second : first;
  // mdb_env_open2 maps (last page + 1) * page size; a sound file holds every page up to the last.
  if ((meta.lastPage + 1n) * BigInt(meta.psize) > BigInt(size)) return 'the data file is truncated (its last page in use lies past its end)';
  return meta;
}

type Tree = 'free' | 'main' | 'named';

/**
 * The pages a free-list record lists (a writer may reuse each), or a problem. The fork's record is
 * a slot count, then slots (midl.c mdb_midl_print): a page number, 0 for a gap left for growth, or
 * -n followed by the first page of a run of n pages.
 */
function freePages(value: Buffer, lastPage: bigint, into: Set<number>): string | undefined {
  if (value.length < W || word(value, 0) * BigInt(W) + BigInt(W) > BigInt(value.length)) return 'a free-list record longer than its space';
  const slots = Number(word(value, 0));
  for (let i = 1; i <= slots; i += 1) {
    const entry = signedWord(value, i * W);
    if (entry === 0n) continue;
    let run = 1n;
    let first = entry;
    if (entry < 0n) {
      if (i === slots) return 'a free-list record cut short';
      run = -entry;
      i += 1;
      first = signedWord(value, i * W);
    }
    // mdb_page_alloc trusts the list: a page out of range would overwrite a meta page or lie past the map.
    if (first < 2n || first + run - 1n > lastPage) return 'a free-list record naming a page out of range';
    for (let p = 0n; p < run; p += 1n) into.add(Number(first + p));
  }
  return undefined;
}

/** Walks every page reachable from the meta's roots in `file`; the first problem found, if any. */
function treeProblem(file: Buffer, meta: Meta): string | undefined {
  const { psize, lastPage } = meta;
  const pages = Math.floor(file.length / psize);
  const seen = new Set<number>();
  /** Pages of the main and named trees and their overflow runs: none may be listed as free. */
  const live = new Set<number>();
  const free = new Set<number>();
  const todo: { pgno: bigint; depth: number; tree: Tree }[] = [];
  meta.roots.forEach((root, i) => todo.push({ pgno: root, depth: 1, tree: i === 0 ? 'free' : 'main' }));
  for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
    const { pgno: big, depth, tree } = next;
    if (big === NO_PAGE) continue;
    const pgno = Number(big);
    const bad = (why: string) => `the data file is damaged (page ${pgno}: ${why})`;
    if (big >= BigInt(pages)) return 'the data file is truncated (a page lies past its end)';
    if (big > lastPage) return bad('past the last page in use');
    if (seen.has(pgno)) return bad('reached twice');
    if (depth > MAX_DEPTH) return bad('the tree is deeper than LMDB allows');
    seen.add(pgno);
    if (tree !== 'free') live.add(pgno);
    const at = pgno * psize;
    const end = at + psize;
    const kind = file.readUInt16LE(at + FLAGS_AT) & P_KINDS;
    if (word(file, at) !== big || (kind !== P_BRANCH && kind !== P_LEAF)) return bad('not a B-tree page');
    // Node offsets and free-space bounds count from the end of the page header (mdb.c PAGEBASE).
    const lower = file.readUInt16LE(at + LOWER_AT);
    const upper = file.readUInt16LE(at + UPPER_AT);
    if (lower % 2 !== 0 || lower > upper || upper > psize - PAGE_HEADER) return bad('bad free-space bounds');
    const count = lower / 2;
    // LMDB merges a page that empties into a neighbour; only a root may be empty.
    if (count === 0 && (kind === P_BRANCH || depth > 1)) return bad('an empty page below the root');
    for (let i = 0; i < count; i += 1) {
      const node = at + PAGE_HEADER + file.readUInt16LE(at + PAGE_HEADER + 2 * i);
      if (node < at + PAGE_HEADER + upper || node + NODE_HEADER > end) return bad('a node outside the page');
      const lo = file.readUInt16LE(node);
      const hi = file.readUInt16LE(node + 2);
      const flags = file.readUInt16LE(node + 4);
      const data = node + NODE_HEADER + file.readUInt16LE(node + 6);
      if (data > end) return bad('a key outside the page');
      if (kind === P_BRANCH) {
        // A child's page number: lo, hi and (with a 64-bit size_t) flags (mdb.c NODEPGNO).
        todo.push({ pgno: BigInt(lo) | (BigInt(hi) << 16n) | (W === 8 ? BigInt(flags) << 32n : 0n), depth: depth + 1, tree });
        continue;
      }
      const size = lo + hi * 65536;
      // quackd opens no duplicate-sorted database, so a node claiming duplicates is damage.
      if ((flags & F_DUPDATA) !== 0) return bad('a node flagged as duplicates');
      let value: Buffer;
      if ((flags & F_BIGDATA) !== 0) {
        if (data + W > end) return bad('a node outside the page');
        const ov = word(file, data);
        if (ov >= BigInt(pages)) return 'the data file is truncated (an overflow page lies past its end)';
        if (ov > lastPage) return bad('a value past the last page in use');
        const ovAt = Number(ov) * psize;
        const run = file.readUInt32LE(ovAt + LOWER_AT);
        if (word(file, ovAt) !== ov || (file.readUInt16LE(ovAt + FLAGS_AT) & P_KINDS) !== P_OVERFLOW) return bad('a value on a page that is not an overflow page');
        if (Number(ov) + run > pages || BigInt(Number(ov) + run - 1) > lastPage || run * psize < PAGE_HEADER + size) return bad('an overflow run of the wrong length');
        value = file.subarray(ovAt + PAGE_HEADER, ovAt + PAGE_HEADER + size);
        if (tree !== 'free') for (let p = 0; p < run; p += 1) live.add(Number(ov) + p);
      } else {
        if (data + size > end) return bad('a value outside the page');
        value = file.subarray(data, data + size);
      }
      if ((flags & F_SUBDATA) !== 0) {
        if (tree !== 'main' || size !== DB_RECORD) return bad('a misplaced database record');
        todo.push({ pgno: word(value, DB_ROOT_AT), depth: 1, tree: 'named' });
      }
      const freeProblem = tree === 'free' ? freePages(value, lastPage, free) : undefined;
      if (freeProblem !== undefined) return bad(freeProblem);
    }
  }
  // A writer would take a page still in use for a new one (mdb_page_touch asserts and aborts).
  for (const p of live) if (free.has(p)) return `the data file is damaged (page ${p}: in use and listed as free)`;
  return undefined;
}

/**
 * Why LMDB's open of the file at `path` would fail before it reads a byte (mdb_env_open,
 * mdb_env_setup_locks), 'absent' when there is no data file yet, or undefined. Either file being a
 * directory fails any open; a write open also needs to write both, creating what is missing. A
 * read-only open goes on without the lock file when it may not write it.
 */
function accessProblem(path: string, readOnly: boolean): string | undefined {
  const lock = `${path}-lock`;
  const data = kindProblem(path, 'the data file');
  const lockKind = kindProblem(lock, 'the lock file');
  if (data !== undefined && data !== 'absent') return data;
  if (lockKind !== undefined && lockKind !== 'absent') return lockKind;
  if (readOnly) return data;
  const dataAccess = data === 'absent' ? creatable(path) : writable(path, 'the data file');
  return dataAccess ?? (lockKind === 'absent' ? creatable(lock) : writable(lock, 'the lock file')) ?? data;
}

/**
 * Why a write open of the store at `path` (a run's, `memory add`'s) would be refused before LMDB
 * is asked: its files' kinds and the access they need, as the open checks them. Writes nothing.
 */
export function writeAccessProblem(path: string): string | undefined {
  const problem = accessProblem(path, false);
  return problem === 'absent' ? undefined : problem;
}

/** 'absent', a one-line problem when `path` is there but not a regular file, or undefined. */
function kindProblem(path: string, what: string): string | undefined {
  try {
    const st = statSync(path);
    if (st.isFile()) return undefined;
    return `${what} ${path} is ${st.isDirectory() ? 'a directory' : 'not a regular file'}`;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'absent' : `cannot look at ${what} ${path} (${code ?? String(err)})`;
  }
}

const errCode = (err: unknown) => (err as NodeJS.ErrnoException).code ?? String(err);

function writable(path: string, what: string): string | undefined {
  try {
    accessSync(path, constants.R_OK | constants.W_OK);
    return undefined;
  } catch (err) {
    return `cannot open ${what} ${path} for writing (${errCode(err)})`;
  }
}

/** A file LMDB will create in a directory that exists: the directory must take it. */
function creatable(path: string): string | undefined {
  try {
    accessSync(dirname(path), constants.W_OK | constants.X_OK);
    return undefined;
  } catch (err) {
    // A directory still to come is made (0700, ours) before LMDB opens.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return `cannot create ${path} (${errCode(err)})`;
  }
}

const GROWTH_RETRIES = 8;
/** A synchronous 10 ms pause: opening the store is synchronous, and this path is rare. */
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));
export const EMPTY_FILE = "the data file is empty (its creation was cut short); 'quackd memory add' starts it afresh";

/**
 * Why the LMDB file at `path` must not be opened, or undefined when LMDB's open will succeed on
 * it and no page it names is damaged. A missing file is fine (LMDB creates it), and so is an empty
 * one unless `readOnly`: LMDB initialises an empty file, which a read-only open cannot.
 */
export function lmdbFileProblem(path: string, options: FileCheckOptions = {}): string | undefined {
  const readOnly = options.readOnly === true;
  const access = accessProblem(path, readOnly);
  if (access === 'absent') return undefined;
  if (access !== undefined) return access;
  let fd: number;
  try {
    // Non-blocking: a FIFO swapped in after the check above must not hang the open.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return `cannot read ${path} (${errCode(err)})`;
  }
  try {
    return fileProblem(fd, readOnly);
  } catch (err) {
    // A read that fails (EIO on a bad sector, EISDIR after a swap) is one line, never a stack trace.
    return `cannot read ${path} (${errCode(err)})`;
  } finally {
    closeSync(fd);
  }
}

function fileProblem(fd: number, readOnly: boolean): string | undefined {
  // Another process may commit while we read. LMDB reuses a page of the tree we walk only two
  // commits later, so a problem seen while the newest transaction id moved is looked at again.
  // A file another process is creating or growing can, for a moment, name pages past its end:
  // that kind of problem is looked at again a few times before it counts as damage.
  for (let attempt = 1; ; attempt += 1) {
    const st = fstatSync(fd);
    if (!st.isFile()) return 'the data file is not a regular file';
    const size = st.size;
    // mdb_env_read_header: an empty file is a new environment, which only a write open can initialise.
    if (size === 0) return readOnly ? EMPTY_FILE : undefined;
    const meta = newestMeta(fd, size);
    const problem = typeof meta === 'string' ? meta : treeProblem(readAt(fd, 0, size), meta);
    if (problem === undefined || attempt >= GROWTH_RETRIES) return problem;
    const growing = /truncated|past its end/.test(problem);
    const again = newestMeta(fd, fstatSync(fd).size);
    // A meta page LMDB refuses is not a commit in flight (commits never rewrite magic or flags).
    const moved = typeof meta !== 'string' && (typeof again === 'string' || again.txnid !== meta.txnid);
    if (!growing && (attempt >= 3 || !moved)) return problem;
    if (growing) Atomics.wait(SLEEPER, 0, 0, 10);
  }
}
