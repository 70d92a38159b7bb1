/**
 * Bench: how long quackd takes from spawn to exit for the commands people type most, side by
 * side with `node -e ""` (the floor: node itself) in the same run, interleaved, as ratios:
 *   --version          goal ≤ 1.5×
 *   status             (no service running: it looks for the control socket and says so) ≤ 1.5×
 *   memory show        (a store holding the runs this bench made) ≤ 2×
 *   run hello-world    (the simulator, the fake pilot, memory on: the episode written) ≤ 2.5×
 * each as a robot runs it and as a clone's `npm install` does:
 *   bundle   the robot's bundle (cross/bundle.ts, what cross/build.sh ships) as /usr/local/bin/quackd
 *            (the file install.sh writes: node by its #! line, no shell), run by this machine's
 *            node with this repo's node_modules for the few external packages; --version and
 *            status also through the untarred folder's bin/quackd (a shell script)
 *   dist     package.json's bin, dist/quackd.cjs (`npm run build`: the same bundle, with source
 *            maps), as node_modules/.bin/quackd and `npm install -g` link it
 * Beside them, the floor of the chosen parts (bench/_startup-parts.ts: zod, yaml and lmdb loaded as
 * the bundle loads them and used once, nothing of quackd), bundled with the rest: what no `run`
 * can start under, so the goals read against it too.
 * On a Pi Zero 2 W every 100 ms here is about a second there. This machine is shared: the figures
 * move with its load (uptime's load average is printed).
 *
 *   node --import tsx bench/startup.ts [--runs N]      (npm run bench startup)
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
const DIST = join(ROOT, 'dist/quackd.cjs');

/** The goals, by command (the issue's). */
const GOALS: Readonly<Record<string, number>> = { '--version': 1.5, status: 1.5, 'memory show': 2, 'run hello-world': 2.5 };

/** The chosen parts a command cannot start without (bench/_startup-parts.ts), by command. */
const PARTS: Readonly<Record<string, readonly string[]>> = { 'memory show': ['lmdb'], 'run hello-world': ['zod', 'yaml', 'lmdb'] };
const partsCase = (parts: readonly string[]) => `parts: ${parts.join(', ')}`;

interface Case {
  readonly name: string;
  readonly file: string;
  readonly args: readonly string[];
  /** The command, for its goal; none for the floors. */
  readonly command?: string;
}

const dir = mkdtempSync(join(tmpdir(), 'quackd-bench-startup-'));
const binDir = mkdtempSync(join(tmpdir(), 'quackd-bench-usr-local-bin-'));
try {
  await bundle(dir, [{ in: join(ROOT, 'bench/_startup-parts.ts'), out: 'startup-parts' }]);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'empty.mjs'), '');
  const home = join(dir, 'home');
  mkdirSync(home);
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
  const node = (name: string, ...args: string[]): Case => ({ name, file: process.execPath, args });
  const commands = [['--version'], ['status'], ['memory', 'show'], ['run', 'hello-world']];
  const of = (label: string, file: string, command: readonly string[], viaNode = false): Case => ({
    name: `${label} ${command.join(' ')}`,
    file: viaNode ? process.execPath : file,
    args: viaNode ? [file, ...command] : command,
    command: command.join(' '),
  });
  const cases: Case[] = [
    node('node -e ""', '-e', ''),
    // An empty ES module: what node's ES module loader costs before the first line of quackd.
    node('node empty.mjs', join(dir, 'empty.mjs')),
    ...[...new Set(Object.values(PARTS))].map((parts) => node(partsCase(parts), join(dir, 'lib/startup-parts.js'), home, ...parts)),
    ...commands.map((c) => of('bundle', installed, c)),
    ...commands.slice(0, 2).map((c) => of('bin/quackd', join(dir, 'bin/quackd'), c)),
    // node_modules/.bin/quackd links to it; its #! line is `/usr/bin/env node`, the same node.
    ...(existsSync(DIST) ? commands.map((c) => of('dist', DIST, c, true)) : []),
  ];
  const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  const once = (c: Case) => {
    const t0 = performance.now();
    const r = spawnSync(c.file, c.args, { env: { PATH: process.env['PATH'], QUACKD_HOME: home }, stdio: 'ignore' });
    const ms = performance.now() - t0;
    // status exits 3 with no service running; anything else (a crash) would make the figure meaningless.
    if (r.status !== 0 && !(c.command === 'status' && r.status === 3)) throw new Error(`${c.name} exited ${r.status ?? r.signal}`);
    return ms;
  };
  for (const c of cases) once(c); // warm the page cache; the first run makes the store memory show reads
  // Interleaved, so a noisy moment on this shared machine lands on every case alike.
  for (let i = 0; i < runs; i += 1) for (const c of cases) samples.get(c.name)?.push(once(c));
  const floor = median(samples.get('node -e ""') ?? []);
  console.log(`${runs} runs each, interleaved; wall time from spawn to exit (ms); load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  for (const c of cases) {
    const s = samples.get(c.name) ?? [];
    const ratio = median(s) / floor;
    // The goals are for quackd as installed; the folder's shell script is there for comparison.
    const goal = c.command !== undefined && !c.name.startsWith('bin/') ? GOALS[c.command] : undefined;
    const parts = c.command !== undefined ? PARTS[c.command] : undefined;
    const partsFloor = parts !== undefined ? median(samples.get(partsCase(parts)) ?? []) : Number.NaN;
    const overParts = parts !== undefined && goal !== undefined ? `; its parts alone ${fmt(partsFloor / floor, 2)}×, it ${fmt(median(s) / partsFloor, 2)}× them` : '';
    const verdict = goal !== undefined ? `  (goal ≤ ${goal}×: ${ratio <= goal ? 'met' : 'MISSED'}${overParts})` : '';
    console.log(`  ${c.name.padEnd(26)} median ${fmt(median(s)).padStart(6)}  p90 ${fmt(percentile(s, 90)).padStart(6)}  ${fmt(ratio, 2)}× node${verdict}`);
  }
  if (!existsSync(DIST)) console.log('  (dist/ not built: npm run build adds it)');
} finally {
  rmSync(dir, { recursive: true, force: true });
  rmSync(binDir, { recursive: true, force: true });
}
