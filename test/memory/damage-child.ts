/**
 * A child process for the damage fuzz: for each damaged copy of a store, asks the header check
 * (as a read-only and as a write open) and, when it lets the file through, opens it with lmdb-js
 * the way src/memory/store.ts does and reads everything (and, for a write open, commits a write).
 * It prints `start <i>` before each case and `done <i> <json>` after it, synchronously, so a crash
 * names its case. Usage: node --import tsx damage-child.ts BASE SEED FROM TO WORKDIR
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database } from 'lmdb';
import { lmdbFileProblem } from '../../src/memory/header-check.js';
import { fuzzCase } from './damage.js';

export interface CaseOutcome {
  /** The header check's refusal, or 'opened' / 'threw: …' when it let the file through. */
  readonly readOnly: string;
  readonly write: string;
}

const firstLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

/** Opens as src/memory/store.ts does (same flags: every process must open the file the same way). */
async function openAndRead(path: string, readOnly: boolean): Promise<string> {
  const root = open({ path, encoding: 'json', maxDbs: 4, readOnly, overlappingSync: false });
  try {
    const names = ['entries', 'meta', 'order'] as const;
    const dbs = names.map((name) => root.openDB<unknown, string>({ name, encoding: name === 'meta' ? 'json' : 'string' }) as Database<unknown, string> | undefined);
    let n = 0;
    for (const db of dbs) for (const { value } of db?.getRange({}) ?? []) n += value === undefined ? 0 : 1;
    root.getStats();
    if (!readOnly) root.transactionSync(() => dbs[0]?.putSync('fuzz\u0000write', '{}'));
    return `opened (${n} values)`;
  } catch (err) {
    return `threw: ${firstLine(err)}`;
  } finally {
    await root.close();
  }
}

async function outcome(path: string, readOnly: boolean): Promise<string> {
  const problem = lmdbFileProblem(path, { readOnly });
  if (problem !== undefined) return `refused: ${problem}`;
  try {
    return await openAndRead(path, readOnly);
  } catch (err) {
    return `threw: ${firstLine(err)}`;
  }
}

const [basePath, seed, from, to, work] = process.argv.slice(2);
const base = readFileSync(basePath ?? '');
for (let i = Number(from); i < Number(to); i += 1) {
  writeSync(1, `start ${i}\n`);
  const dir = join(work ?? '', `case-${i}`);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'memory.mdb');
  const c = fuzzCase(base, Number(seed), i);
  writeFileSync(path, c.bytes);
  const result: CaseOutcome = { readOnly: await outcome(path, true), write: await outcome(path, false) };
  writeSync(1, `done ${i} ${JSON.stringify(result)}\n`);
  rmSync(dir, { recursive: true, force: true });
}
