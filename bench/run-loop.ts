/**
 * The pilot loop's own cost per step, outside the provider: a run of quack steps with an instant
 * provider and a real transcript on disk, against the bare body performing the same verbs.
 * Then `quackd run hello-world --provider fake` end to end, against a bare `node -e ""`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSim2dBody } from '../src/bodies/microduck/sim2d/sim2d-body.js';
import { parseDuck } from '../src/ducks/parse.js';
import type { PilotResponse, Provider } from '../src/pilot/providers/provider.js';
import { startRun } from '../src/run/start-run.js';
import { yesGate } from '../src/safety/gate.js';
import { fmt, median } from './_stats.js';

const STEPS = 400;
const ROUNDS = 7;
const home = mkdtempSync(join(tmpdir(), 'quackd-bench-'));

const instant: Provider = {
  name: 'instant',
  model: 'none',
  next: (): Promise<PilotResponse> => Promise.resolve({ text: '', toolCalls: [{ id: 'c', name: 'turn', args: { degrees: 10 } }] }),
};

const duck = parseDuck(`---\nverbs: [turn]\nbudgets: { steps: ${STEPS}, llm_calls: ${STEPS + 1}, seconds: 600 }\n---\n# Bench\n\n1. Turn.\n`, 'bench.duck', 'bench');

async function loopPerStepUs(): Promise<number> {
  const started = performance.now();
  const report = await startRun({ duck, robot: 'microduck:sim2d', seed: 1, provider: instant, gate: yesGate, dryRun: false, transcriptsDir: join(home, 'transcripts'), signal: new AbortController().signal });
  return ((performance.now() - started) * 1000) / report.steps;
}

async function bodyPerStepUs(): Promise<number> {
  const body = createSim2dBody({ seed: 1 });
  const started = performance.now();
  for (let i = 0; i < STEPS; i++) {
    await body.perform({ verb: 'turn', args: { degrees: 10 } });
    await body.observe();
  }
  return ((performance.now() - started) * 1000) / STEPS;
}

const loop: number[] = [];
const bare: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  bare.push(await bodyPerStepUs());
  loop.push(await loopPerStepUs());
}
const overhead = median(loop) - median(bare);
console.log(`loop per step (incl. transcript):  ${fmt(median(loop))} µs   bare body per step: ${fmt(median(bare))} µs`);
console.log(`loop overhead per step:            ${fmt(overhead)} µs   (${fmt(median(loop) / median(bare))}× the bare body)`);

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
// No QUACKD_* from the caller: a QUACKD_MEMORY_DIR would have these runs write into someone's real memory.
const env = { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('QUACKD_'))), QUACKD_HOME: home, NO_COLOR: '1' };
const wall = (args: string[]): number => {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { env, stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
  return performance.now() - t;
};
const runs: number[] = [];
const nodes: number[] = [];
for (let r = 0; r < 9; r++) {
  nodes.push(wall(['-e', '']));
  runs.push(wall([main, 'run', 'hello-world', '--provider', 'fake']));
}
console.log(`quackd run hello-world --provider fake: ${fmt(median(runs), 0)} ms wall   bare node -e "": ${fmt(median(nodes), 0)} ms   (${fmt(median(runs) / median(nodes))}×)`);
rmSync(home, { recursive: true, force: true });
