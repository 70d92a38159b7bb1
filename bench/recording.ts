/**
 * Bench: what recording a run costs the control loop, and its disk. The loop drives the kinematic
 * test plant (14 joints, a gait-shaped verb, 50 Hz, real time) for S seconds a case, in P pairs of
 * cases in one process, the order alternating (off/on, on/off, …) so a machine that slows or
 * speeds up during the bench weighs on both sides alike:
 *   off   nobody listens to its ticks (the loop still fills and the main thread drains its ring);
 *   on    a run's recorder (src/recording/run-recorder.ts) writes every tick to an MCAP file:
 *         joints target/applied/measured, IMU, tick timing: 5 messages a tick, zstd chunks.
 * Figures, per pair and as the median over the pairs (a pair compares cases seconds apart, so
 * its ratio is the least disturbed by other work on a shared machine): the loop's own lateness
 * p99 on/off, the process's CPU (every thread, % of one core) on minus off, and the main
 * thread's own CPU on minus off (the recorder's cost, free of the worker's spin-wait and the
 * loader threads, which vary with the machine's load); the load average before and after says
 * how busy the machine was. A first recorded walk of 3 s, not in the pairs, pays what a process
 * pays once (compiling zstd's WebAssembly, which V8 finishes on its background threads, and the
 * JIT warming the recorder's code): it is printed apart, and the pairs measure what recording
 * costs while it runs. Goals (issue 27): lateness p99 on/off ≤ 1.1×,
 * CPU ≤ +1 % of a core, ≤ 2 MB a minute of a 50 Hz walk with 14 joints.
 *
 *   node --import tsx bench/recording.ts [--seconds S] [--pairs P]     (default 15 s, 4 pairs)
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ControlLoop } from '../src/control/control-loop.js';
import type { ControlStats } from '../src/control/stats.js';
import { RunRecorder } from '../src/recording/run-recorder.js';
import { EventBus } from '../src/runtime/events.js';
import { fmt, median } from './_stats.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '15' }, pairs: { type: 'string', default: '4' } } });
const SECONDS = Number(values.seconds);
const PAIRS = Number(values.pairs);
if (!(SECONDS >= 1)) throw new Error(`--seconds ${values.seconds ?? ''}: give a number of seconds ≥ 1`);
if (!(Number.isInteger(PAIRS) && PAIRS >= 1)) throw new Error(`--pairs ${values.pairs ?? ''}: give a whole number ≥ 1`);
const PLANT = new URL('../test/control/kinematic-plant.ts', import.meta.url).href;
const GAIT = new URL('./_gait-skill.ts', import.meta.url).href;
const dir = mkdtempSync(join(tmpdir(), 'quackd-bench-recording-'));

interface Result {
  readonly stats: ControlStats;
  /** the process's CPU over the walk, % of one core */
  readonly cpu: number;
  /** the main thread's own CPU, % of one core: where the recorder runs (NaN off Linux) */
  readonly main: number;
  readonly bytes?: number;
  readonly droppedTicks?: number;
}

async function walk(record: boolean, seconds = SECONDS): Promise<Result> {
  const events = new EventBus();
  let final: ControlStats | undefined;
  events.on('control:stats', (e) => (final = e.stats));
  const loop = await ControlLoop.start({ plant: { module: PLANT, options: { joints: 14, min: -3, max: 3, maxVelocity: 20 } }, events, robot: 'bench' });
  const recorder = record ? await RunRecorder.open(dir, `walk-${Date.now()}`, 'bench', events) : undefined;
  const cpu0 = process.cpuUsage();
  const main0 = mainThreadCpuS();
  const t0 = performance.now();
  const verb = loop.run({ module: GAIT, options: null });
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  loop.stop();
  await verb;
  const used = process.cpuUsage(cpu0);
  const main = mainThreadCpuS() - main0;
  const wall = performance.now() - t0;
  await loop.close();
  const report = await recorder?.close();
  if (final === undefined) throw new Error('no stats were published');
  return { stats: final, cpu: ((used.user + used.system) / 1000 / wall) * 100, main: ((main * 1000) / wall) * 100, ...(report !== undefined ? { bytes: statSync(report.path).size, droppedTicks: report.droppedTicks + report.droppedMessages } : {}) };
}

/**
 * The main thread's CPU seconds so far (Linux: its task's utime + stime, in clock ticks of 10 ms):
 * the process's figure also holds the control worker's spin-wait and tsx's loader threads, which
 * vary with the machine's load far more than recording costs.
 */
function mainThreadCpuS(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

const load = () => loadavg().map((l) => fmt(l, 2)).join(' ');
try {
  console.log(`recording cost: the kinematic plant, 14 joints, a gait at 50 Hz, ${PAIRS} pairs of ${SECONDS} s cases, order alternating · ${cpus().length} cores, load average ${load()} (1, 5, 15 min)`);
  const row = (name: string, r: Result) =>
    console.log(`  ${name.padEnd(4)} ticks ${r.stats.ticks} · late p50 ${fmt(r.stats.lateMs.p50, 3)} p99 ${fmt(r.stats.lateMs.p99, 3)} max ${fmt(r.stats.lateMs.max, 2)} ms · missed ${r.stats.missed} · CPU ${fmt(r.cpu, 2)} % of a core, main thread ${fmt(r.main, 2)} %`);
  const warm = await walk(true, 3);
  console.log(`warm-up (once a process, not in the pairs): a 3 s recorded walk, CPU ${fmt(warm.cpu, 2)} % of a core, main thread ${fmt(warm.main, 2)} %`);
  const ratios: number[] = [];
  const extra: number[] = [];
  const busier: number[] = [];
  const perMinute: number[] = [];
  let dropped = 0;
  let scheduling = '';
  for (let p = 0; p < PAIRS; p++) {
    const onFirst = p % 2 === 1;
    const first = await walk(onFirst);
    const second = await walk(!onFirst);
    const [on, off] = onFirst ? [first, second] : [second, first];
    scheduling = off.stats.scheduling;
    console.log(`pair ${p + 1} (${onFirst ? 'on, off' : 'off, on'}): p99 on/off ${fmt(on.stats.lateMs.p99 / off.stats.lateMs.p99, 2)}× · CPU ${on.cpu >= off.cpu ? '+' : ''}${fmt(on.cpu - off.cpu, 2)} % of a core · main thread ${on.main >= off.main ? '+' : ''}${fmt(on.main - off.main, 2)} %`);
    row('off', off);
    row('on', on);
    ratios.push(on.stats.lateMs.p99 / off.stats.lateMs.p99);
    extra.push(on.cpu - off.cpu);
    busier.push(on.main - off.main);
    perMinute.push((on.bytes ?? 0) / (on.stats.ticks / 50 / 60));
    dropped += on.droppedTicks ?? 0;
  }
  const range = (xs: number[], d: number) => `${fmt(Math.min(...xs), d)}…${fmt(Math.max(...xs), d)}`;
  const cpuMedian = median(extra);
  console.log(`  median of ${PAIRS} pairs: lateness p99 on/off ${fmt(median(ratios), 2)}× (goal ≤ 1.1; pairs ${range(ratios, 2)}) · CPU ${cpuMedian >= 0 ? '+' : ''}${fmt(cpuMedian, 2)} % of a core (goal ≤ +1; pairs ${range(extra, 2)}) · ${scheduling}`);
  const busyMedian = median(busier);
  console.log(`  the main thread, where the recorder runs (the loop's worker only fills its ring): ${busyMedian >= 0 ? '+' : ''}${fmt(busyMedian, 2)} % of a core, median (pairs ${range(busier, 2)})`);
  console.log(`  recording: ${fmt(median(perMinute) / 1e6, 2)} MB a minute, median (goal ≤ 2) · ${dropped} ticks or messages dropped · load average now ${load()}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
