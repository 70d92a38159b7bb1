/**
 * A pre-flight look at the LMDB data file before lmdb-js maps it. The native open does not fail
 * politely on a file that is not LMDB (garbage, zeroes, truncated): it takes the process down
 * with SIGSEGV or SIGBUS, and a corrupt store must never crash a run. So we read the two meta
 * pages ourselves and check the magic, the version, the page size and that the root pages they
 * name lie inside the file. Damage deeper in the B-tree is what `quackd memory doctor` finds, by
 * reading every entry in a separate process.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const MAGIC = 0xbeefc0de;
/** The data version of the LMDB that lmdb-js 3 bundles (mdb.c MDB_DATA_VERSION). */
const DATA_VERSION = 2;
const P_BRANCH = 0x01;
const P_LEAF = 0x02;
const P_META = 0x08;
/** Page header: pgno (8), txnid (8), pad (2), flags (2), lower/upper (4). */
const PAGE_HEADER = 24;
const FLAGS_AT = 18;
/** Offsets inside MDB_meta, which follows the page header. */
const META = { magic: 0, version: 4, psize: 24, freeRoot: 64, mainRoot: 112, txnid: 128 } as const;
const NO_PAGE = 0xffffffffffffffffn;

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

/**
 * Why the LMDB file at `path` must not be opened, or undefined when it looks sound (or does not
 * exist yet, or is empty: LMDB initialises those).
 */
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
    const size = fstatSync(fd).size;
    if (size === 0) return undefined;
    const first = parseMeta(readAt(fd, 0, 256));
    const sizes = first !== undefined ? [first.psize] : [4096, 8192, 16384, 32768, 65536];
    let second: Meta | undefined;
    for (const psize of sizes) {
      second = parseMeta(readAt(fd, psize, 256));
      if (second !== undefined && second.psize === psize) break;
      second = undefined;
    }
    const metas = [first, second].filter((m): m is Meta => m !== undefined);
    const newest = metas.sort((a, b) => (a.txnid > b.txnid ? -1 : 1))[0];
    if (newest === undefined) return 'the data file is not an LMDB database (no valid meta page)';
    if (size < 2 * newest.psize) return 'the data file is truncated';
    for (const root of newest.roots) {
      if (root === NO_PAGE) continue;
      const offset = Number(root) * newest.psize;
      if (offset + newest.psize > size) return 'the data file is truncated (a root page lies past its end)';
      const page = readAt(fd, offset, PAGE_HEADER);
      const flags = page.readUInt16LE(FLAGS_AT);
      if (page.readBigUInt64LE(0) !== root || (flags & (P_BRANCH | P_LEAF)) === 0) return 'the data file is damaged (a root page is not a B-tree page)';
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}
