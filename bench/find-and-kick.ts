/**
 * find-and-kick with the fake pilot over many seeds, on sim2d and on the MuJoCo twin: the share
 * of seeds that succeed and the wall time per run (median, p95), per body. Each run is a whole
 * `quackd run` (startRun, in this process: the body, the executor, the pilot loop and the
 * transcript), one seed after another. A failed seed is listed with its failure class and its
 * verbs, so a rate that drops says why.
 *
 * `npm run bench find-and-kick` runs seeds 1–200 on both bodies (the twin takes a few seconds a
 * seed). To look closer: `node --import tsx bench/find-and-kick.ts --body mujoco --seeds 1-60,140-200`.
 * `--camera` runs each body with `camera: synthetic`: what the body sees comes from its rendered
 * camera and the colour detector instead of the simulator's own answer (compare the two rates).
 */
import { parseArgs } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BodyKey } from '../src/bodies/body.js';
import { findDuck } from '../src/ducks/find.js';
import { createFakeProvider } from '../src/pilot/providers/fake.js';
import { startRun } from '../src/run/start-run.js';
import { noTtyGate } from '../src/safety/gate.js';
import type { TranscriptEvent } from '../src/transcript/events.js';
import { fmt, median, percentile } from './_stats.js';
import { seedList } from './_seeds.js';

const BODIES: Readonly<Record<string, BodyKey>> = { sim2d: 'microduck:sim2d', mujoco: 'microduck:mujoco' };

const { values } = parseArgs({ options: { body: { type: 'string', multiple: true }, seeds: { type: 'string', default: '1-200' }, verbose: { type: 'boolean', default: false }, camera: { type: 'boolean', default: false } } });

type VerbResult = Extract<TranscriptEvent, { type: 'verb_result' }>;

/** What went wrong in a failed run, read from its verb results: the classes issue 22 names. */
function failureClass(results: readonly VerbResult[], reason: string): string {
  const kicks = results.filter((r) => r.verb === 'kick');
  if (results.some((r) => r.data?.['fell'] === true)) return 'fell';
  if (!results.some((r) => r.data?.['ball_visible'] === true)) return 'search never saw the ball';
  const blocked = results.filter((r) => r.verb === 'walk' && r.data?.['blocked_by'] !== undefined && r.data['blocked_by'] !== 'ball');
  if (blocked.length >= 2) return 'walk blocked again and again';
  if (kicks.length === 0) return `never kicked (${reason})`;
  if (kicks.every((k) => (Number(k.data?.['ball_moved_m']) || 0) < 0.3) && kicks.some((k) => Number(k.data?.['ball_moved_m']) > 0)) return 'kicks moved the ball < 0.3 m';
  if (kicks.every((k) => !k.ok)) return 'kicks missed';
  return reason;
}

interface Tally {
  readonly ok: number[];
  readonly wallMs: number[];
  readonly failures: Map<string, number[]>;
}

async function runSeeds(key: BodyKey, seeds: readonly number[]): Promise<Tally> {
  const duck = findDuck('find-and-kick');
  const dir = mkdtempSync(join(tmpdir(), 'quackd-bench-kick-'));
  const tally: Tally = { ok: [], wallMs: [], failures: new Map() };
  try {
    for (const seed of seeds) {
      const results: VerbResult[] = [];
      const start = performance.now();
      const report = await startRun({ duck, robot: key, seed, provider: createFakeProvider(), gate: noTtyGate, dryRun: false, transcriptsDir: dir, ...(values.camera ? { bodySettings: { camera: 'synthetic' } } : {}), signal: new AbortController().signal, onEvent: (e) => e.type === 'verb_result' && results.push(e) });
      tally.wallMs.push(performance.now() - start);
      rmSync(report.transcriptPath, { force: true });
      if (report.outcome.status === 'success') {
        tally.ok.push(seed);
        if (values.verbose) console.log(`  seed ${seed}: success`);
        continue;
      }
      const why = failureClass(results, report.outcome.reason);
      tally.failures.set(why, [...(tally.failures.get(why) ?? []), seed]);
      if (values.verbose) console.log(`  seed ${seed}: ${why}\n${results.map((r) => `    ${r.label}: ${r.summary}`).join('\n')}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return tally;
}

const seeds = seedList(values.seeds);
const bodies = values.body ?? Object.keys(BODIES);
for (const name of bodies) {
  const key = BODIES[name];
  if (key === undefined) throw new Error(`--body: "${name}" is not one of ${Object.keys(BODIES).join(', ')}`);
  const t = await runSeeds(key, seeds);
  const rate = (100 * t.ok.length) / seeds.length;
  console.log(`${key}${values.camera ? ' (camera: synthetic)' : ''} find-and-kick, fake pilot, seeds ${values.seeds}: ${t.ok.length}/${seeds.length} succeeded (${fmt(rate)} %, goal ≥ 95 %) · wall per run median ${fmt(median(t.wallMs), 0)} ms, p95 ${fmt(percentile(t.wallMs, 95), 0)} ms`);
  for (const [why, failed] of [...t.failures].sort((a, b) => b[1].length - a[1].length)) console.log(`  ${failed.length} × ${why}: seeds ${failed.join(' ')}`);
}
