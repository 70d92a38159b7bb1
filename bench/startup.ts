/**
 * Bench: how long `quackd --version` and `quackd status` take to start and end, side by side with
 * `node -e ""` (the floor: node itself) in the same run. The bundle (cross/bundle.ts, what
 * cross/build.sh ships) is run by this machine's node with this repo's node_modules for the few
 * external packages; dist/ (tsc's output, what `npm install -g` runs) is beside it. The issue's
 * target: the bundle within 1.5× the floor, since on a Pi Zero 2 W every 100 ms here is about a
 * second there. `status` with no service running: it looks for the control socket and says so.
 * This machine is shared: the figures move with its load (uptime's load average is printed).
 *
 *   node --import tsx bench/startup.ts [--runs N]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundle } from '../cross/bundle.js';
import { fmt, median, percentile } from './_stats.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '30' } } });
const runs = Number(values.runs);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist/main.js');

const dir = mkdtempSync(join(tmpdir(), 'quackd-bench-startup-'));
try {
  await bundle(dir);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'empty.mjs'), '');
  const home = join(dir, 'home');
  const cases: { name: string; args: string[] }[] = [
    { name: 'node -e ""', args: ['-e', ''] },
    // An empty ES module: what node's ES module loader costs before the first line of quackd.
    { name: 'node empty.mjs', args: [join(dir, 'empty.mjs')] },
    { name: 'bundle --version', args: [join(dir, 'lib/quackd.js'), '--version'] },
    { name: 'bundle status', args: [join(dir, 'lib/quackd.js'), 'status'] },
    ...(existsSync(DIST)
      ? [
          { name: 'dist --version', args: [DIST, '--version'] },
          { name: 'dist status', args: [DIST, 'status'] },
        ]
      : []),
  ];
  const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  const once = (c: (typeof cases)[number]) => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, c.args, { env: { PATH: process.env['PATH'], QUACKD_HOME: home }, stdio: 'ignore' });
    const ms = performance.now() - t0;
    // status exits 3 with no service running; anything else (a crash) would make the figure meaningless.
    if (r.status !== 0 && !(c.name.endsWith('status') && r.status === 3)) throw new Error(`${c.name} exited ${r.status ?? r.signal}`);
    return ms;
  };
  for (const c of cases) once(c); // warm the page cache
  // Interleaved, so a noisy moment on this shared machine lands on every case alike.
  for (let i = 0; i < runs; i += 1) for (const c of cases) samples.get(c.name)?.push(once(c));
  const floor = median(samples.get('node -e ""') ?? []);
  console.log(`${runs} runs each, interleaved; wall time from spawn to exit (ms); load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  for (const c of cases) {
    const s = samples.get(c.name) ?? [];
    const ratio = median(s) / floor;
    const verdict = c.name.startsWith('bundle') ? (ratio <= 1.5 ? '  (target ≤ 1.5×: met)' : '  (target ≤ 1.5×: MISSED)') : '';
    console.log(`  ${c.name.padEnd(18)} median ${fmt(median(s)).padStart(6)}  p90 ${fmt(percentile(s, 90)).padStart(6)}  ${fmt(ratio, 2)}× node${verdict}`);
  }
  if (!existsSync(DIST)) console.log('  (dist/ not built: npm run build adds it for comparison)');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
