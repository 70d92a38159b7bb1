/**
 * The memory store under the load issue 8 describes, through the built CLI as a user runs it:
 * `memory import` scaling (10k vs 40k lines: linear is ×4), 12 `memory add` at once against 12 in
 * a row (what serialising on the store guard costs), and what opening the store for writing costs
 * (the writer worker) against a read-only open. Needs `npm run build` (npm run bench does it).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'quackd-bench-mem-'));
const env = (home: string) => ({ ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('QUACKD_'))), QUACKD_HOME: home, NO_COLOR: '1' });
const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);

function cli(home: string, args: string[]): number {
  const t = performance.now();
  const r = spawnSync(process.execPath, [MAIN, ...args], { env: env(home), stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`quackd ${args.join(' ')}: ${r.stderr.toString()}`);
  return performance.now() - t;
}

function cliAsync(home: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [MAIN, ...args], { env: env(home), stdio: 'ignore' });
    c.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`quackd ${args.join(' ')} exited ${code}`))));
  });
}

try {
  const sizes = [10_000, 40_000];
  const took = sizes.map((n) => {
    const home = mkdtempSync(join(root, 'import-'));
    const file = join(home, 'm.jsonl');
    writeFileSync(file, Array.from({ length: n }, (_, i) => `${JSON.stringify({ text: `imported fact ${i} about the hallway`, kind: i % 2 ? 'note' : 'episode' })}\n`).join(''));
    return cli(home, ['memory', 'import', file]);
  });
  console.log(`memory import: ${sizes[0]} lines ${fmt(took[0] ?? 0)}, ${sizes[1]} lines ${fmt(took[1] ?? 0)} · ×${((took[1] ?? 0) / (took[0] ?? 1)).toFixed(2)} for ×4 the lines (linear: ≈4)`);

  const home = mkdtempSync(join(root, 'adds-'));
  cli(home, ['memory', 'add', 'the first note makes the store']);
  const t0 = performance.now();
  for (let i = 0; i < 12; i += 1) cli(home, ['memory', 'add', `in a row ${i}`]);
  const serial = performance.now() - t0;
  const t1 = performance.now();
  await Promise.all(Array.from({ length: 12 }, (_, i) => cliAsync(home, ['memory', 'add', `at once ${i}`])));
  const parallel = performance.now() - t1;
  console.log(`12 × memory add: in a row ${fmt(serial)}, at once ${fmt(parallel)} (×${(parallel / serial).toFixed(2)}; 2 cores, each a whole node process)`);

  const show = Array.from({ length: 5 }, () => cli(home, ['memory', 'show'])).sort((a, b) => a - b)[2] ?? 0;
  const add = Array.from({ length: 5 }, (_, i) => cli(home, ['memory', 'add', `timed ${i}`])).sort((a, b) => a - b)[2] ?? 0;
  console.log(`one command, median of 5: memory show (read-only open) ${fmt(show)}, memory add (guard + writer worker + durable commit) ${fmt(add)} (×${(add / show).toFixed(2)})`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
