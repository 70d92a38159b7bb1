/**
 * Bench: how long `quackd --version` and `quackd status` take to start and end, side by side with
 * `node -e ""` (the floor: node itself) in the same run. The bundle (cross/bundle.ts, what
 * cross/build.sh ships) is run by this machine's node with this repo's node_modules for the few
 * external packages, as `quackd` on a robot's PATH runs it (the file install.sh writes: node, no
 * shell) and as the untarred folder's bin/quackd (a shell script) does; dist/ (tsc's output, what
 * `npm install -g` runs) is beside it. The issue's
 * target: the bundle within 1.5× the floor, since on a Pi Zero 2 W every 100 ms here is about a
 * second there. `status` with no service running: it looks for the control socket and says so.
 * This machine is shared: the figures move with its load (uptime's load average is printed).
 *
 *   node --import tsx bench/startup.ts [--runs N]
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
const binDir = mkdtempSync(join(tmpdir(), 'quackd-bench-usr-local-bin-'));
try {
  await bundle(dir);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'empty.mjs'), '');
  const home = join(dir, 'home');
  // How a robot runs it: /usr/local/bin/quackd as systemd/install.sh writes it (node by its #!
  // line, requiring the launcher), and bin/quackd, the untarred folder's shell script. This
  // machine's node stands in for the bundle's own.
  mkdirSync(join(dir, 'node/bin'), { recursive: true });
  symlinkSync(process.execPath, join(dir, 'node/bin/node'));
  mkdirSync(join(dir, 'bin'));
  copyFileSync(join(ROOT, 'cross/files/quackd'), join(dir, 'bin/quackd'));
  // Outside the bundle, whose package.json ("type": "module") would make it an ES module.
  const installed = join(binDir, 'quackd');
  writeFileSync(installed, `#!${join(dir, 'node/bin/node')}\nrequire(${JSON.stringify(join(dir, 'lib/quackd.cjs'))});\n`, { mode: 0o755 });
  const node = (name: string, ...args: string[]) => ({ name, file: process.execPath, args });
  const cases: { name: string; file: string; args: string[] }[] = [
    node('node -e ""', '-e', ''),
    // An empty ES module: what node's ES module loader costs before the first line of quackd.
    node('node empty.mjs', join(dir, 'empty.mjs')),
    { name: 'bundle --version', file: installed, args: ['--version'] },
    { name: 'bundle status', file: installed, args: ['status'] },
    { name: 'bin/quackd --version', file: join(dir, 'bin/quackd'), args: ['--version'] },
    { name: 'bin/quackd status', file: join(dir, 'bin/quackd'), args: ['status'] },
    ...(existsSync(DIST) ? [node('dist --version', DIST, '--version'), node('dist status', DIST, 'status')] : []),
  ];
  const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  const once = (c: (typeof cases)[number]) => {
    const t0 = performance.now();
    const r = spawnSync(c.file, c.args, { env: { PATH: process.env['PATH'], QUACKD_HOME: home }, stdio: 'ignore' });
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
    console.log(`  ${c.name.padEnd(21)} median ${fmt(median(s)).padStart(6)}  p90 ${fmt(percentile(s, 90)).padStart(6)}  ${fmt(ratio, 2)}× node${verdict}`);
  }
  if (!existsSync(DIST)) console.log('  (dist/ not built: npm run build adds it for comparison)');
} finally {
  rmSync(dir, { recursive: true, force: true });
  rmSync(binDir, { recursive: true, force: true });
}
