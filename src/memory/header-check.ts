/**
 * A look at the LMDB data file before lmdb-js maps it. The native code trusts every page it
 * reads: a file that is not LMDB (garbage, zeroes, truncated) or a damaged B-tree page takes the
 * process down with SIGSEGV, SIGBUS or an abort, and a corrupt store must never crash a run. So we
 * read the two meta pages ourselves (magic, version, page size), then walk every tree the newest
 * one names (the free list, the main tree, each named database) and check what LMDB would follow
 * blindly: page numbers, page kinds, free-space bounds, node offsets and sizes, overflow runs,
 * depth. It costs a read of the file and a few milliseconds (bench/memory.ts). Damage inside a
 * value is not structural and does not crash LMDB; `quackd memory doctor` finds that by reading
 * every entry in a separate process.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const MAGIC = 0xbeefc0de;
/** The data version of the LMDB that lmdb-js 3 bundles (mdb.c MDB_DATA_VERSION). */
const DATA_VERSION = 2;
const P_BRANCH = 0x01;
const P_LEAF = 0x02;
const P_OVERFLOW = 0x04;
const P_META = 0x08;
/** The page-kind bits (with LEAF2 0x20 and SUBP 0x40); the other flag bits are transient bookkeeping. */
const P_KINDS = P_BRANCH | P_LEAF | P_OVERFLOW | P_META | 0x20 | 0x40;
/** Page header: pgno (8), txnid (8), pad (2), flags (2), lower/upper (4) or overflow page count. */
const PAGE_HEADER = 24;
const FLAGS_AT = 18;
/** Offsets inside MDB_meta, which follows the page header. */
const META = { magic: 0, version: 4, psize: 24, freeRoot: 64, mainRoot: 112, txnid: 128 } as const;
const NO_PAGE = 0xffffffffffffffffn;
/** A node: data size lo/hi (or a branch's child page), flags, key size (2 bytes each), then key and data. */
const NODE_HEADER = 8;
const F_BIGDATA = 0x01;
const F_SUBDATA = 0x02;
const F_DUPDATA = 0x04;
/** A named database's record (MDB_db) in the main tree; its root page is the last field. */
const DB_RECORD = 48;
const DB_ROOT_AT = 40;
/** mdb.c CURSOR_STACK: no tree is deeper. */
const MAX_DEPTH = 32;

interface Meta {
  readonly psize: number;
  readonly txnid: bigint;
  readonly roots: readonly bigint[];
}

function readAt(fd: number, offset: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  const n = readSync(fd, buf, 0, length, offset);
  return buf.subarray(0, n);
}

function parseMeta(page: Buffer): Meta | undefined {
  if (page.length < PAGE_HEADER + META.txnid + 8) return undefined;
  if ((page.readUInt16LE(FLAGS_AT) & P_META) === 0) return undefined;
  const m = PAGE_HEADER;
  if (page.readUInt32LE(m + META.magic) !== MAGIC || page.readUInt32LE(m + META.version) !== DATA_VERSION) return undefined;
  const psize = page.readUInt32LE(m + META.psize);
  if (psize < 512 || psize > 65536 || (psize & (psize - 1)) !== 0) return undefined;
  return {
    psize,
    txnid: page.readBigUInt64LE(m + META.txnid),
    roots: [page.readBigUInt64LE(m + META.freeRoot), page.readBigUInt64LE(m + META.mainRoot)],
  };
}

/** The newest valid meta page of the file open as `fd`. */
function newestMeta(fd: number): Meta | undefined {
  const first = parseMeta(readAt(fd, 0, 256));
  const sizes = first !== undefined ? [first.psize] : [4096, 8192, 16384, 32768, 65536];
  let second: Meta | undefined;
  for (const psize of sizes) {
    second = parseMeta(readAt(fd, psize, 256));
    if (second !== undefined && second.psize === psize) break;
    second = undefined;
  }
  const metas = [first, second].filter((m): m is Meta => m !== undefined);
  return metas.sort((a, b) => (a.txnid > b.txnid ? -1 : 1))[0];
}

type Tree = 'free' | 'main' | 'named';

/** Walks every page reachable from the meta's roots in `file`; the first problem found, if any. */
function treeProblem(file: Buffer, meta: Meta): string | undefined {
  const { psize } = meta;
  const pages = Math.floor(file.length / psize);
  const seen = new Set<number>();
  const todo: { pgno: bigint; depth: number; tree: Tree }[] = [];
  meta.roots.forEach((root, i) => todo.push({ pgno: root, depth: 1, tree: i === 0 ? 'free' : 'main' }));
  for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
    const { pgno: big, depth, tree } = next;
    if (big === NO_PAGE) continue;
    const pgno = Number(big);
    const bad = (why: string) => `the data file is damaged (page ${pgno}: ${why})`;
    if (big >= BigInt(pages)) return 'the data file is truncated (a page lies past its end)';
    if (seen.has(pgno)) return bad('reached twice');
    if (depth > MAX_DEPTH) return bad('the tree is deeper than LMDB allows');
    seen.add(pgno);
    const at = pgno * psize;
    const end = at + psize;
    const kind = file.readUInt16LE(at + FLAGS_AT) & P_KINDS;
    if (file.readBigUInt64LE(at) !== big || (kind !== P_BRANCH && kind !== P_LEAF)) return bad('not a B-tree page');
    // Node offsets and free-space bounds count from the end of the page header (mdb.c PAGEBASE).
    const lower = file.readUInt16LE(at + 20);
    const upper = file.readUInt16LE(at + 22);
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
        todo.push({ pgno: BigInt(lo) | (BigInt(hi) << 16n) | (BigInt(flags) << 32n), depth: depth + 1, tree });
        continue;
      }
      const size = lo + hi * 65536;
      // quackd opens no duplicate-sorted database, so a node claiming duplicates is damage.
      if ((flags & F_DUPDATA) !== 0) return bad('a node flagged as duplicates');
      let value: Buffer;
      if ((flags & F_BIGDATA) !== 0) {
        if (data + 8 > end) return bad('a node outside the page');
        const ov = file.readBigUInt64LE(data);
        if (ov >= BigInt(pages)) return 'the data file is truncated (an overflow page lies past its end)';
        const ovAt = Number(ov) * psize;
        const run = file.readUInt32LE(ovAt + 20);
        if (file.readBigUInt64LE(ovAt) !== ov || (file.readUInt16LE(ovAt + FLAGS_AT) & P_KINDS) !== P_OVERFLOW) return bad('a value on a page that is not an overflow page');
        if (Number(ov) + run > pages || run * psize < PAGE_HEADER + size) return bad('an overflow run of the wrong length');
        value = file.subarray(ovAt + PAGE_HEADER, ovAt + PAGE_HEADER + size);
      } else {
        if (data + size > end) return bad('a value outside the page');
        value = file.subarray(data, data + size);
      }
      if ((flags & F_SUBDATA) !== 0) {
        if (tree !== 'main' || size !== DB_RECORD) return bad('a misplaced database record');
        todo.push({ pgno: value.readBigUInt64LE(DB_ROOT_AT), depth: 1, tree: 'named' });
      }
      // A free-list record is a count followed by that many page numbers; a writer reads them all.
      if (tree === 'free' && (size < 8 || value.readBigUInt64LE(0) * 8n + 8n > BigInt(size))) return bad('a free-list record longer than its space');
    }
  }
  return undefined;
}

/**
 * Why the LMDB file at `path` must not be opened, or undefined when it looks sound (or does not
 * exist yet, or is empty: LMDB initialises those).
 */
const GROWTH_RETRIES = 8;
/** A synchronous 10 ms pause: opening the store is synchronous, and this path is rare. */
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

export function lmdbFileProblem(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    return `cannot read ${path} (${code ?? String(err)})`;
  }
  try {
    // Another process may commit while we read. LMDB reuses a page of the tree we walk only two
    // commits later, so a problem seen while the newest transaction id moved is looked at again.
    // A file another process is creating or growing can, for a moment, name pages past its end:
    // that kind of problem is looked at again a few times before it counts as damage.
    for (let attempt = 1; ; attempt += 1) {
      const size = fstatSync(fd).size;
      if (size === 0) return undefined;
      const meta = newestMeta(fd);
      if (meta === undefined) return 'the data file is not an LMDB database (no valid meta page)';
      const problem = size < 2 * meta.psize ? 'the data file is truncated' : treeProblem(readAt(fd, 0, size), meta);
      if (problem === undefined || attempt >= GROWTH_RETRIES) return problem;
      const growing = /truncated|past its end/.test(problem);
      if (!growing && (attempt >= 3 || newestMeta(fd)?.txnid === meta.txnid)) return problem;
      if (growing) Atomics.wait(SLEEPER, 0, 0, 10);
    }
  } finally {
    closeSync(fd);
  }
}
