/**
 * Damage a store's data file the way a bad sector or a stray write would, for the corruption
 * tests. Pages are found by a marker text that only one note holds, so the damage lands on a
 * page LMDB will read (and on stale copies of it, which is harmless).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { seededRandom } from '../../src/random.js';

const PAGE = 4096;

function pagesHolding(data: Buffer, marker: string): number[] {
  const pages = new Set<number>();
  for (let at = data.indexOf(marker); at >= 0; at = data.indexOf(marker, at + 1)) pages.add(Math.floor(at / PAGE));
  if (pages.size === 0) throw new Error(`no page holds ${marker}`);
  return [...pages];
}

/** Zeroes the page-kind flags of every page holding `marker`: LMDB aborts on such a page. */
export function damagePageFlags(file: string, marker: string): void {
  const data = readFileSync(file);
  for (const p of pagesHolding(data, marker)) data.fill(0, p * PAGE + 18, p * PAGE + 20);
  writeFileSync(file, data);
}

/** Overwrites bytes inside every stored value holding `marker`: the B-tree is sound, the JSON is not. */
export function damageValue(file: string, marker: string): void {
  const data = readFileSync(file);
  pagesHolding(data, marker);
  for (let at = data.indexOf(marker); at >= 0; at = data.indexOf(marker, at + 1)) data.write('{{\u0001', at, 'latin1');
  writeFileSync(file, data);
}

/** The meta-page damage from issue 8: bytes 24–31 (magic and version) of page 0 zeroed. */
export function zeroRange(file: string, from: number, to: number): void {
  const data = readFileSync(file);
  data.fill(0, from, Math.min(to, data.length));
  writeFileSync(file, data);
}

/** The sim's seeded mulberry32, so a failing fuzz case reproduces from its seed. */
export const prng = seededRandom;

export interface FuzzCase {
  readonly index: number;
  /** What was done to the copy, for the failure message. */
  readonly what: string;
  readonly bytes: Buffer;
}

/** Bytes of the meta pages LMDB reads (the page header and MDB_meta). */
const META_BYTES = 24 + 144;

/**
 * Damaged copy number `index` of `base` for fuzz seed `seed`: byte flips, zeroed ranges and
 * random bytes in a meta page or a tree page, or a truncation. Each case draws from its own
 * PRNG (seed, index), so one case reproduces without the ones before it.
 */
export function fuzzCase(base: Buffer, seed: number, index: number): FuzzCase {
  const rand = prng((seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
  const int = (n: number) => Math.floor(rand() * n);
  const data = Buffer.from(base);
  const pages = Math.floor(base.length / PAGE);
  const kind = int(7);
  if (kind === 0) {
    // A truncation: to nothing, inside a meta page, between pages, or inside a tree page.
    const cuts = [0, 1 + int(META_BYTES), PAGE + int(META_BYTES), PAGE * (2 + int(pages - 2)), int(base.length)];
    const length = cuts[int(cuts.length)] ?? 0;
    return { index, what: `truncated to ${length} bytes`, bytes: data.subarray(0, length) };
  }
  const meta = kind <= 3;
  const page = meta ? int(2) : 2 + int(pages - 2);
  const span = meta ? META_BYTES : PAGE;
  const at = page * PAGE + int(span);
  if (kind === 1 || kind === 4) {
    const flips = 1 + int(4);
    const offsets: number[] = [];
    for (let i = 0; i < flips; i += 1) {
      const o = page * PAGE + int(span);
      data[o] = (data[o] ?? 0) ^ (1 << int(8));
      offsets.push(o);
    }
    return { index, what: `bit flips at ${offsets.join(', ')} (page ${page})`, bytes: data };
  }
  if (kind === 2 || kind === 5) {
    const length = 1 + int(meta ? 32 : 512);
    data.fill(0, at, Math.min(at + length, (page + 1) * PAGE));
    return { index, what: `zeroed ${length} bytes at ${at} (page ${page})`, bytes: data };
  }
  const length = 1 + int(16);
  for (let i = 0; i < length && at + i < (page + 1) * PAGE; i += 1) data[at + i] = int(256);
  return { index, what: `random bytes ${at}..${at + length - 1} (page ${page})`, bytes: data };
}
