/**
 * Bench: what recording a run costs the control loop, and its disk. The loop drives the kinematic
 * test plant (14 joints, a gait-shaped verb, 50 Hz, real time) for S seconds twice in one process:
 *   off   nobody listens to its ticks (the loop still fills and the main thread drains its ring);
 *   on    a run's recorder (src/recording/run-recorder.ts) writes every tick to an MCAP file:
 *         joints target/applied/measured, IMU, tick timing: 6 messages a tick, zstd chunks.
 * Figures: the loop's own lateness (p50, p99, max; missed ticks), the process's CPU (both threads,
 * % of one core), and the recording's bytes per minute. Goals (issue 27): lateness p99 on/off
 * ≤ 1.1×, CPU ≤ +1 % of a core, ≤ 2 MB a minute of a 50 Hz walk with 14 joints.
 *
 *   node --import tsx bench/recording.ts [--seconds S]      (default 30 a case)
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ControlLoop } from '../src/control/control-loop.js';
import type { ControlStats } from '../src/control/stats.js';
import { RunRecorder } from '../src/recording/run-recorder.js';
import { EventBus } from '../src/runtime/events.js';
import { fmt } from './_stats.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '30' } } });
const SECONDS = Number(values.seconds);
if (!(SECONDS >= 1)) throw new Error(`--seconds ${values.seconds ?? ''}: give a number of seconds ≥ 1`);
const PLANT = new URL('../test/control/kinematic-plant.ts', import.meta.url).href;
const GAIT = new URL('./_gait-skill.ts', import.meta.url).href;
const dir = mkdtempSync(join(tmpdir(), 'quackd-bench-recording-'));

interface Result {
  readonly stats: ControlStats;
  /** the process's CPU over the walk, % of one core */
  readonly cpu: number;
  readonly bytes?: number;
  readonly droppedTicks?: number;
}

async function walk(record: boolean): Promise<Result> {
  const events = new EventBus();
  let final: ControlStats | undefined;
  events.on('control:stats', (e) => (final = e.stats));
  const loop = await ControlLoop.start({ plant: { module: PLANT, options: { joints: 14, min: -3, max: 3, maxVelocity: 20 } }, events, robot: 'bench' });
  const recorder = record ? await RunRecorder.open(dir, `walk-${Date.now()}`, 'bench', events) : undefined;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const verb = loop.run({ module: GAIT, options: null });
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  loop.stop();
  await verb;
  const used = process.cpuUsage(cpu0);
  const wall = performance.now() - t0;
  await loop.close();
  const report = await recorder?.close();
  if (final === undefined) throw new Error('no stats were published');
  return { stats: final, cpu: ((used.user + used.system) / 1000 / wall) * 100, ...(report !== undefined ? { bytes: statSync(report.path).size, droppedTicks: report.droppedTicks + report.droppedMessages } : {}) };
}

try {
  // Off first and on second, then off again: a machine that slows during the run shows as two offs that differ.
  const off = await walk(false);
  const on = await walk(true);
  const again = await walk(false);
  const row = (name: string, r: Result) =>
    console.log(`  ${name.padEnd(9)} ticks ${r.stats.ticks} · late p50 ${fmt(r.stats.lateMs.p50, 3)} p99 ${fmt(r.stats.lateMs.p99, 3)} max ${fmt(r.stats.lateMs.max, 2)} ms · missed ${r.stats.missed} · CPU ${fmt(r.cpu, 2)} % of a core`);
  console.log(`recording cost: the kinematic plant, 14 joints, a gait at 50 Hz, ${SECONDS} s a case (${off.stats.scheduling})`);
  row('off', off);
  row('on', on);
  row('off again', again);
  const offP99 = (off.stats.lateMs.p99 + again.stats.lateMs.p99) / 2;
  const offCpu = (off.cpu + again.cpu) / 2;
  const minutes = on.stats.ticks / 50 / 60;
  const perMinute = (on.bytes ?? 0) / minutes;
  console.log(`  on/off lateness p99 ${fmt(on.stats.lateMs.p99 / offP99, 2)}× (goal ≤ 1.1; off: the mean of the two) · CPU ${on.cpu >= offCpu ? '+' : ''}${fmt(on.cpu - offCpu, 2)} % of a core (goal ≤ +1; the two offs differ by ${fmt(Math.abs(off.cpu - again.cpu), 2)})`);
  console.log(`  recording: ${fmt((on.bytes ?? 0) / 1e6, 2)} MB for ${fmt(minutes * 60, 0)} s = ${fmt(perMinute / 1e6, 2)} MB a minute (goal ≤ 2) · ${on.droppedTicks ?? 0} ticks or messages dropped`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
