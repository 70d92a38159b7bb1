/**
 * Damage a store's data file the way a bad sector or a stray write would, for the corruption
 * tests. Pages are found by a marker text that only one note holds, so the damage lands on a
 * page LMDB will read (and on stale copies of it, which is harmless).
 */
import { readFileSync, writeFileSync } from 'node:fs';

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
