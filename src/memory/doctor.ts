/**
 * What `quackd memory doctor` finds: the files and their modes, counts per body, last writes,
 * pending legacy files and an integrity check. The check reads every entry in a child process
 * (src/memory/deep-check.ts), so a store damaged enough to crash LMDB's reader is reported, not
 * fatal. Nothing here writes to the store.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DeepCheckResult } from './deep-check.js';
import { lmdbFileProblem } from './header-check.js';
import { pendingLegacyFiles } from './legacy.js';
import { DATA_FILE, LOCK_FILE } from './store.js';

export interface DoctorReport {
  readonly dir: string;
  readonly exists: boolean;
  readonly dirMode?: string;
  readonly files: readonly { name: string; bytes: number; mode: string }[];
  readonly legacyPending: readonly string[];
  readonly check?: DeepCheckResult;
  /** Everything wrong, one line each; empty when healthy. */
  readonly problems: readonly string[];
}

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8).padStart(4, '0');

/** The loader flags of this process (`--import tsx`), and none of the rest (`--test`, inspectors). */
function loaderArgs(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i] ?? '';
    if (/^--(?:import|loader|experimental-loader|require)=/.test(a)) out.push(a);
    else if (/^--(?:import|loader|experimental-loader|require)$|^-r$/.test(a) && argv[i + 1] !== undefined) out.push(a, argv[(i += 1)] ?? '');
  }
  return out;
}

function runDeepCheck(dir: string): Promise<{ result?: DeepCheckResult; failure?: string }> {
  const self = fileURLToPath(import.meta.url);
  // Same loader as this process: .ts under tsx (tests, dev), .js from dist.
  const script = join(self, '..', `deep-check${extname(self)}`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...loaderArgs(), script, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', (e) => resolve({ failure: `could not start the check (${e.message})` }));
    child.on('close', (code, signal) => {
      if (signal !== null) return resolve({ failure: `reading the store crashed LMDB (${signal}): the data file is damaged` });
      if (code !== 0) return resolve({ failure: `the check failed: ${err.trim().split('\n').find((l) => /Error/.test(l)) ?? `exit ${code}`}` });
      try {
        resolve({ result: JSON.parse(out) as DeepCheckResult });
      } catch {
        resolve({ failure: 'the check printed no result' });
      }
    });
  });
}

export async function diagnose(dir: string): Promise<DoctorReport> {
  const legacyPending = pendingLegacyFiles(dir).map((p) => p.file);
  const data = join(dir, DATA_FILE);
  if (existsSync(dir) && !statSync(dir).isDirectory()) return { dir, exists: false, files: [], legacyPending, problems: [`${dir} is not a directory (check --memory-dir or QUACKD_MEMORY_DIR)`] };
  if (!existsSync(data)) return { dir, exists: false, files: [], legacyPending, problems: [] };
  const problems: string[] = [];
  const dirMode = mode(dir);
  if (dirMode !== '0700') problems.push(`${dir} is mode ${dirMode}, not 0700`);
  const files = [DATA_FILE, LOCK_FILE].filter((f) => existsSync(join(dir, f))).map((name) => {
    const path = join(dir, name);
    const m = mode(path);
    if (m !== '0600') problems.push(`${name} is mode ${m}, not 0600`);
    return { name, bytes: statSync(path).size, mode: m };
  });
  // The integrity check opens read-only, so an empty file is a problem here, not a new store.
  const header = lmdbFileProblem(data, { readOnly: true });
  if (header !== undefined) return { dir, exists: true, dirMode, files, legacyPending, problems: [...problems, header] };
  const { result, failure } = await runDeepCheck(dir);
  if (failure !== undefined) problems.push(failure);
  for (const i of result?.invalid ?? []) problems.push(`entry ${i.key}: ${i.problem}`);
  for (const b of result?.bodies ?? []) for (const p of b.problems) problems.push(`${b.body}: ${p}`);
  return { dir, exists: true, dirMode, files, legacyPending, ...(result !== undefined ? { check: result } : {}), problems };
}
