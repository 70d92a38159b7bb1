/**
 * Bench: `quackd serve` as a Pi would run it (issue 11). Every service here is a process of its
 * own, from dist/ (the bundle, as a robot's), with a temp QUACKD_HOME and config, under the
 * environment systemd/quackd.service gives it (bench/_unit-env.ts); the bench only watches it from
 * outside (/proc/<pid>, the control socket through the CLI, an MQTT subscriber process).
 *   rss     VmRSS (and the peak, VmHWM) once it says ready, and again after a walk, for
 *           (a) a simulated fleet (sim2d robots), (b) the real duck: microduck:jsonrpc on the host
 *           firmware over a pty (test/bridge/rig.ts), whose walk loads the ONNX policies in the
 *           control worker, (c) the MuJoCo twin (pace realtime). Each as `dist/main.js serve`
 *           ships (on main its front doors are the control socket alone) and as serve with the
 *           MQTT front door (the embedded aedes) added, the composition serve is to have; (d) an
 *           Open Duck Mini v2 (microduck:feetech) against the twin behind the servo simulator paced
 *           at 1 Mbaud on a pty (bench/_servo-twin.ts, a process of its own), its BNO055 simulated.
 *   idle    CPU (utime+stime of every thread, /proc/<pid>/stat) over S seconds ÷ S, and the
 *           wake-ups a second (context switches: what an idle thread's CPU mostly is), for (a) and
 *           (b) with MQTT, (b) after its walk (its loop holds the pose at 50 Hz), each once the
 *           service has settled for T seconds (V8 shrinks a fresh heap in its first seconds: that
 *           is start-up, not idling), and the RSS again after the window (RSS idle).
 *   floors  measured in the same run (bench/_floor.ts): the RSS of node with a worker holding
 *           onnxruntime-node and the walk policy's session, and the CPU of a worker pacing a bare
 *           50 Hz loop; (b)'s and (d)'s figures are also given as ratios to them (goals for (d),
 *           issue 25: RSS settled ≤ 1.3× the onnxruntime floor, idle CPU ≤ 2× the bare loop),
 *           and the settled RSS by kind beside the floor's (bench/_rss-parts.ts): anonymous memory,
 *           node's binary, onnxruntime's library, other files. The parts floor (that floor with the
 *           chosen libraries the held duck's main thread loads, bench/_chosen-parts.ts) says how
 *           much of (d)'s RSS is quackd's own, and how much room the 1.3× goal leaves it.
 *   jitter  the jsonrpc robot's loop `control:stats` (tick lateness p50/p99/max, missed) over a
 *           W-second walk with MQTT publishing state (state_hz 20, mosquitto_sub subscribed to
 *           everything), and again with a client asking `bridge/request/status` at 20 Hz (the
 *           state itself changes a few times a second: state_hz is a ceiling), against the same
 *           with `mqtt: false`: the p99 ratios.
 * The walks are `quackd run --yes` through the control socket, a user's way, piloted by a fake
 * OpenAI-compatible server in this process answering walk and turn 50 ms after each question.
 * The control stats are not reachable from outside the service (status carries rate and missed
 * only), so the serve+MQTT child also writes each `control:stats` of its bus to its stdout.
 * Goals (the issue): RSS ≤ 90 MB serving the real duck with a policy loaded; idle CPU ≤ 1 %;
 * jitter p99 ratio ≤ 1.1.
 *
 *   heaps   with --heaps, (d) and the floors again under the inspector: each V8 isolate's heap
 *           (main thread, control worker, …) settled, so the RSS over the floors has a thread.
 *
 *   node --import tsx bench/service.ts [--seconds S] [--walk W] [--settle T] [--only a,b,c,d] [--heaps]     (S 60, W 30, T 10 by default; npm run build first)
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ControlStats } from '../src/control/stats.js';
import { missingTools, Rig } from '../test/bridge/rig.js';
import { closedPort, openaiToolCalls, startLlmServer, type LlmServer } from '../test/helpers/llm-server.js';
import { bundle } from '../cross/bundle.js';
import { readCredentials } from '../src/mqtt/credentials.js';
import { bareLoop, onnxFloor, partsFloor, rssMb, type Floor } from './_floor.js';
import { inspectorPort, isolateHeaps, type IsolateHeap } from './_isolate-heaps.js';
import { servoTwinProcess } from './_servo-twin.js';
import { cpuPressure } from './_machine.js';
import { rssParts, type RssParts } from './_rss-parts.js';
import { unitEnvironment } from './_unit-env.js';
import { fmt } from './_stats.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '60' }, walk: { type: 'string', default: '30' }, settle: { type: 'string', default: '10' }, only: { type: 'string', default: 'a,b,c,d' }, heaps: { type: 'boolean', default: false } } });
const ONLY = new Set(values.only.split(','));
const SECONDS = Number(values.seconds);
const WALK_S = Number(values.walk);
const SETTLE_S = Number(values.settle);
if (!(SETTLE_S >= 0)) throw new Error(`--settle ${values.settle ?? ''}: give a number of seconds ≥ 0`);
if (!(SECONDS >= 1)) throw new Error(`--seconds ${values.seconds ?? ''}: give a number of seconds ≥ 1`);
if (!(WALK_S >= 2)) throw new Error(`--walk ${values.walk ?? ''}: give a number of seconds ≥ 2`);

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const ROBOT = 'duck';
const FLEET = 4;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The serve+MQTT child (bench/_service-child.ts), bundled with quackd's code as dist is, in a
 * folder of its own with this repository's node_modules: `node <script>` runs it.
 */
async function buildChild(): Promise<{ script: string; parts: string; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'quackd-bench-service-child-'));
  const entry = (file: string) => fileURLToPath(new URL(file, import.meta.url));
  await bundle(dir, [
    { in: entry('./_service-child.ts'), out: 'serve-mqtt' },
    { in: entry('./_chosen-parts.ts'), out: 'chosen-parts' },
  ]);
  symlinkSync(fileURLToPath(new URL('../node_modules', import.meta.url)), join(dir, 'node_modules'));
  return { script: join(dir, 'lib/serve-mqtt.js'), parts: join(dir, 'lib/chosen-parts.js'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}
const CHILD = await buildChild();

type Kind = 'serve' | 'serve+mqtt';

interface Served {
  readonly pid: number;
  readonly home: string;
  /** every control:stats the serve+mqtt child wrote, in order */
  readonly stats: { robot: string; stats: ControlStats }[];
  /** the start of its stderr (node's own lines come first: the inspector's port) */
  head(): string;
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** A service in a fresh QUACKD_HOME with `config`, resolved once it says it is ready. */
async function serve(kind: Kind, config: string, nodeArgs: readonly string[] = []): Promise<Served> {
  const home = mkdtempSync(join(tmpdir(), 'quackd-bench-service-'));
  writeFileSync(join(home, 'config.yaml'), config);
  const env = { ...unitEnvironment(), PATH: process.env['PATH'] ?? '/usr/bin:/bin', QUACKD_HOME: home };
  const args = [...nodeArgs, ...(kind === 'serve' ? [MAIN, 'serve'] : [CHILD.script])];
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const stats: Served['stats'] = [];
  let log = '';
  let head = '';
  let ready = false;
  child.stderr.setEncoding('utf8').on('data', (s: string) => {
    log = (log + s).slice(-4000);
    if (head.length < 4000) head += s;
    if (s.includes('quackd serve ready')) ready = true;
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line === 'ready') ready = true;
    else if (line.startsWith('{')) stats.push(JSON.parse(line) as Served['stats'][number]);
  });
  const stop = async () => {
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited(child);
    clearTimeout(killer);
    rmSync(home, { recursive: true, force: true });
  };
  const until = Date.now() + 60_000;
  while (!ready) {
    if (child.exitCode !== null || Date.now() > until) {
      await stop();
      throw new Error(`${kind} did not get ready: ${log}`);
    }
    await sleep(20);
  }
  if (child.pid === undefined) throw new Error(`${kind}: no pid`);
  return { pid: child.pid, home, stats, head: () => head, stop };
}

/** VmRSS and VmHWM of a process, MB (10^6 bytes, as the goal's figure). */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: (kb('VmRSS') * 1024) / 1e6, peak: (kb('VmHWM') * 1024) / 1e6 };
}

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime+stime of a process (every thread) or one of its threads, seconds; 0 for a thread gone. */
function cpuSeconds(pid: number, tid?: number): number {
  let stat: string;
  try {
    stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
  } catch {
    return 0;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[14 - 3]) + Number(fields[15 - 3])) / CLK_TCK;
}

const threads = (pid: number): number[] => readdirSync(`/proc/${pid}/task`).map(Number);
/** Every thread of node is `node`: the main one by its tid, the control worker's by SCHED_FIFO (field 41), once chrt has raised it. */
function threadName(pid: number, tid: number): string {
  if (tid === pid) return 'main';
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  } catch {
    // It ended in the window: the memory writer's worker retires after 30 s without a write.
    return `thread ${tid - pid} (ended)`;
  }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[41 - 3] === '1' ? 'control (FIFO)' : `thread ${tid - pid}`;
}

/** Times a thread was switched out (it slept, or was preempted): its wake-ups, which an idle thread's CPU mostly is. */
function wakeUps(pid: number, tid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
    return ['voluntary_ctxt_switches', 'nonvoluntary_ctxt_switches'].reduce((n, f) => n + Number(new RegExp(`^${f}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0), 0);
  } catch {
    return 0;
  }
}

/** The service's CPU share over `seconds` of doing nothing, percent of one CPU, and its busiest threads' (with their wake-ups a second). */
async function idleCpu(pid: number, seconds: number): Promise<{ total: number; busiest: string; wakeUps: number }> {
  const tids = threads(pid);
  const before = new Map(tids.map((t) => [t, { cpu: cpuSeconds(pid, t), woke: wakeUps(pid, t) }]));
  const [c0, t0] = [cpuSeconds(pid), performance.now()];
  await sleep(seconds * 1000);
  const wall = (performance.now() - t0) / 1000;
  const share = tids
    .map((t) => ({ name: threadName(pid, t), pct: ((cpuSeconds(pid, t) - (before.get(t)?.cpu ?? 0)) / wall) * 100, woke: (wakeUps(pid, t) - (before.get(t)?.woke ?? 0)) / wall }))
    .sort((a, b) => b.pct - a.pct);
  const busiest = share.filter((t) => t.pct >= 0.05).slice(0, 3).map((t) => `${t.name} ${fmt(t.pct, 2)} % ${fmt(t.woke, 0)}/s`).join(', ');
  return { total: ((cpuSeconds(pid) - c0) / wall) * 100, busiest, wakeUps: share.reduce((n, t) => n + t.woke, 0) };
}

/** The pilot of every walk: walk, turn, walk, … 50 ms after each question, until the run's seconds run out. */
async function walker(): Promise<LlmServer> {
  let n = 0;
  const moves = [{ name: 'walk', arguments: '{"metres":0.3}' }, { name: 'turn', arguments: '{"degrees":45}' }];
  return startLlmServer({ fallback: () => openaiToolCalls([moves[n++ % moves.length] ?? { name: 'quack', arguments: '{}' }]), delayMs: () => 50 });
}

const duckFor = (body: string, seconds: number) =>
  `---\nrobot: ${body}\nverbs: [walk, turn${body.startsWith('microduck:feetech') || body.startsWith('microduck:dynamixel') ? '' : ', quack'}]\nbudgets: { steps: 1000, llm_calls: 1000, seconds: ${seconds} }\n---\n# Pace about\n\nWalk and turn in short moves until the time is up.\n\n1. walk a short way.\n2. turn a little, then walk again.\n`;

/** `quackd run --yes` of a walking duck through the service's socket; resolves when the run ends. */
async function walk(served: Served, body: string, seconds: number): Promise<string> {
  const path = join(served.home, 'pace.duck');
  writeFileSync(path, duckFor(body, seconds));
  const child = spawn(process.execPath, [MAIN, 'run', path, '--robot', ROBOT, '--yes'], { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', QUACKD_HOME: served.home }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (out += s));
  await exited(child);
  return out.trim().split('\n').at(-1) ?? '';
}

const pilotSection = (llm: LlmServer) => `pilot: { provider: openai, model: bench-walker, base_url: ${JSON.stringify(`${llm.url}/v1`)} }\n`;

/**
 * --heaps: the held Open Duck Mini again, and the floors, each under the inspector (which costs
 * memory of its own, so these are not the RSS figures above), and each V8 isolate's heap in them:
 * which thread's JavaScript the held duck's RSS over its floors is.
 */
async function heapsByIsolate(config: string): Promise<void> {
  const inspect = ['--inspect=127.0.0.1:0'];
  const portOf = (stderr: string): number => {
    const port = inspectorPort(stderr);
    if (port === undefined) throw new Error(`no inspector port in: ${stderr.slice(0, 300)}`);
    return port;
  };
  // Each read as late after its start (a floor) or its walk (the duck) as the RSS figures above.
  const settledHeaps = async (f: Floor) => (await sleep(FLOOR_SETTLE_S * 1000), await isolateHeaps(portOf(f.stderr())));
  const rows: { what: string; heaps: IsolateHeap[] }[] = [];
  rows.push({ what: 'onnxruntime floor', heaps: await measured(onnxFloor(inspect), settledHeaps) });
  rows.push({ what: 'parts floor', heaps: await measured(partsFloor(CHILD.parts, inspect), settledHeaps) });
  const served = await serve('serve+mqtt', config, inspect);
  try {
    await walk(served, 'microduck:feetech', 5);
    await sleep(FLOOR_SETTLE_S * 1000);
    rows.push({ what: '(d) feetech duck', heaps: await isolateHeaps(portOf(served.head())) });
  } finally {
    await served.stop();
  }
  console.log(`\nV8 heaps by isolate, settled, each process under the inspector (used / physical MB; the biggest spaces' physical MB)`);
  for (const row of rows) {
    for (const h of row.heaps) {
      const spaces = Object.entries(h.spaces).filter(([, mb]) => mb >= 0.5).sort((a, b) => b[1] - a[1]).map(([name, mb]) => `${name} ${fmt(mb)}`).join(', ');
      say(`${row.what.padEnd(20)}${h.thread.padEnd(22)}${`${fmt(h.used)} / ${fmt(h.physical)}`.padEnd(14)}${spaces}`);
    }
  }
}

const MB = (n: number) => `${fmt(n)} MB`;
const say = (line: string) => console.log(line);

const tools = missingTools();
const llm = await walker();
const rig = tools === undefined && (ONLY.has('b') || ONLY.has('jitter')) ? await Rig.start() : undefined;
const servoTwin = tools === undefined && ONLY.has('d') ? await servoTwinProcess('feetech') : undefined;
console.log(`quackd serve from dist/ (the bundle), ${FLEET} sim2d robots for the fleet · idle windows ${SECONDS} s after ${SETTLE_S} s settling, walks ${WALK_S} s · cpu pressure before: ${cpuPressure()}`);

/** A baseline process, measured and stopped. */
async function measured<T>(floor: Promise<Floor>, measure: (f: Floor) => Promise<T>): Promise<T> {
  const f = await floor;
  try {
    return await measure(f);
  } finally {
    await f.stop();
  }
}
// The RSS floors are read as late after their start as a held duck's settled RSS after its walk
// (settling, then the idle window): V8 shrinks a fresh heap in its first seconds (the onnxruntime
// floor 89.2 MB at 1 s, 86.2 at 10 s and at 20 s), and a floor read early flatters the ratio.
const FLOOR_SETTLE_S = Math.max(1, SETTLE_S + SECONDS);
const settledRss = async (f: Floor) => (await sleep(FLOOR_SETTLE_S * 1000), { rss: rssMb(f.pid), parts: rssParts(f.pid) });
const floor = await measured(onnxFloor(), settledRss);
const floorRss = floor.rss;
const bare = await measured(bareLoop(), async (f) => (await sleep(SETTLE_S * 1000), await idleCpu(f.pid, SECONDS)));
const loopCpu = bare.total;
const parts = await measured(partsFloor(CHILD.parts), settledRss);
console.log(`floors, RSS read ${FLOOR_SETTLE_S} s after start: node + a worker with onnxruntime-node and the walk policy's session ${MB(floorRss)} RSS · a worker pacing a bare 50 Hz loop ${fmt(loopCpu, 2)} % CPU (${bare.busiest}; ${fmt(bare.wakeUps, 0)} wake-ups/s in all)`);
console.log(`parts floor: the onnxruntime floor with the chosen parts a held duck's main thread loads (aedes, lmdb, mqtt, openai, pino, yaml, zod) imported, nothing run: ${MB(parts.rss)} RSS, ${fmt(parts.rss / floorRss, 2)}× the onnxruntime floor; (d)'s goal, 1.3× it (${MB(1.3 * floorRss)}), leaves ${MB(1.3 * floorRss - parts.rss)} for quackd's own code, its control worker's skills and plant, and what a walk leaves`);
if (rig === undefined) console.log(`jsonrpc cases skipped: ${tools ?? ''}`);
try {
  const mqttPort = await closedPort();
  const fleet = Array.from({ length: FLEET }, (_, i) => `  den${i + 1}: { body: microduck:sim2d }\n`).join('');
  // The embedded broker refuses anonymous clients: the dashboard below logs in as a login that may ask for status.
  const mqttOn = `mqtt: { port: ${mqttPort}, state_hz: 20, users: { dashboard: { may: [command] } } }\n`;
  const configs: { name: string; body: string; robots: string; walks: boolean; idle: boolean }[] = [
    { name: '(a) sim2d fleet', body: 'microduck:sim2d', robots: `robots:\n${fleet}`, walks: false, idle: true },
    ...(rig !== undefined ? [{ name: '(b) jsonrpc duck', body: 'microduck:jsonrpc', robots: `robots:\n  ${ROBOT}: { body: microduck:jsonrpc, port: ${JSON.stringify(rig.hostPath)} }\n`, walks: true, idle: true }] : []),
    { name: '(c) mujoco twin', body: 'microduck:mujoco', robots: `robots:\n  ${ROBOT}: { body: microduck:mujoco, pace: realtime }\n`, walks: true, idle: false },
    ...(servoTwin !== undefined ? [{ name: '(d) feetech duck', body: 'microduck:feetech', robots: `robots:\n  ${ROBOT}: ${servoTwin.yaml}\n`, walks: true, idle: true }] : []),
  ].filter((c) => ONLY.has(c.name.slice(1, 2)));

  console.log(`\n${'service'.padEnd(20)}${'front doors'.padEnd(16)}${'RSS ready'.padEnd(12)}${'RSS walked'.padEnd(13)}${'RSS idle'.padEnd(11)}${'peak'.padEnd(11)}idle CPU`);
  const held = new Map<string, { rss: number; cpu: number; parts: RssParts }>();
  for (const c of configs) {
    for (const kind of ['serve', 'serve+mqtt'] as const) {
      const served = await serve(kind, `${pilotSection(llm)}${c.robots}${kind === 'serve+mqtt' ? mqttOn : 'mqtt: false\n'}`);
      try {
        await sleep(1000);
        const ready = memory(served.pid);
        let walked = '-';
        if (c.walks) {
          const outcome = await walk(served, c.body, 5);
          if (!/^(OK|FAIL budget)/.test(outcome)) console.log(`  ${c.name} walk: ${outcome}`);
          await sleep(1000);
          walked = MB(memory(served.pid).rss);
        }
        let cpu: { total: number; busiest: string; wakeUps: number } | undefined;
        let settled = '-';
        if (c.idle && kind === 'serve+mqtt') {
          await sleep(SETTLE_S * 1000);
          cpu = await idleCpu(served.pid, SECONDS);
          const rss = memory(served.pid).rss;
          const parts = rssParts(served.pid);
          settled = MB(rss);
          if (c.walks) held.set(c.name.slice(0, 3), { rss, cpu: cpu.total, parts });
        }
        const idle = cpu !== undefined ? `${fmt(cpu.total, 2)} % over ${SECONDS} s, ${fmt(cpu.wakeUps, 0)} wake-ups/s (${cpu.busiest || 'no thread ≥ 0.05 %'})` : '-';
        const doors = kind === 'serve' ? 'socket' : 'socket, mqtt';
        say(`${c.name.padEnd(20)}${doors.padEnd(16)}${MB(ready.rss).padEnd(12)}${walked.padEnd(13)}${settled.padEnd(11)}${MB(memory(served.pid).peak).padEnd(11)}${idle}`);
      } finally {
        await served.stop();
      }
    }
  }

  for (const [name, duck] of held) {
    const goals = name === '(d)' ? ' (goals ≤ 1.3× and ≤ 2×)' : ` (the goal, 90 MB, is ${fmt(90 / floorRss, 2)}× it)`;
    say(`${name} against the floors: RSS idle ${fmt(duck.rss / floorRss, 2)}× the onnxruntime floor, ${fmt(duck.rss / parts.rss, 2)}× the parts floor (quackd's own +${MB(duck.rss - parts.rss)}) · idle CPU ${fmt(duck.cpu / loopCpu, 2)}× the bare 50 Hz loop${goals}`);
    const by = (k: keyof RssParts, what: string) => `${what} ${MB(duck.parts[k])} against ${fmt(floor.parts[k])} and ${fmt(parts.parts[k])}`;
    say(`${name} RSS idle by kind, against the onnxruntime and parts floors': ${by('anonymous', 'anonymous (V8 heaps, malloc)')} · ${by('node', "node's binary")} · ${by('onnxruntime', 'onnxruntime')} · ${by('otherFiles', 'other files')}`);
  }

  if (values.heaps && servoTwin !== undefined) await heapsByIsolate(`${pilotSection(llm)}robots:\n  ${ROBOT}: ${servoTwin.yaml}\n${mqttOn}`);

  if (rig !== undefined) {
    console.log(`\njitter: the jsonrpc duck's 50 Hz loop over a ${WALK_S} s walk (its loop's whole life: from the walk's first tick)`);
    console.log(`${'mqtt'.padEnd(22)}${'lateness p50/p99/max ms'.padEnd(27)}missed  overruns  ticks   ${'MQTT msgs/s'.padEnd(20)}${'scheduling'.padEnd(15)}outcome`);
    const results: { name: string; stats: ControlStats }[] = [];
    for (const mode of ['off', 'on', 'asked'] as const) {
      const on = mode !== 'off';
      const served = await serve('serve+mqtt', `${pilotSection(llm)}robots:\n  ${ROBOT}: { body: microduck:jsonrpc, port: ${JSON.stringify(rig.hostPath)} }\n${on ? mqttOn : 'mqtt: false\n'}`);
      let sub: ChildProcess | undefined;
      let pub: ChildProcess | undefined;
      let asking: NodeJS.Timeout | undefined;
      let states = 0;
      let answers = 0;
      const login = () => ['-u', 'dashboard', '-P', readCredentials(served.home)?.get('dashboard') ?? ''];
      try {
        if (on) {
          sub = spawn('mosquitto_sub', ['-h', '127.0.0.1', '-p', String(mqttPort), ...login(), '-t', 'quackd/#', '-v'], { stdio: ['ignore', 'pipe', 'ignore'] });
          createInterface({ input: sub.stdout! }).on('line', (line) => {
            if (line.startsWith(`quackd/${ROBOT}/state `)) states += 1;
            else if (line.startsWith('quackd/bridge/response/status ')) answers += 1;
          });
          await sleep(500);
        }
        // A dashboard that asks for status at 20 Hz: MQTT traffic both ways at the rate the issue names.
        if (mode === 'asked') {
          pub = spawn('mosquitto_pub', ['-h', '127.0.0.1', '-p', String(mqttPort), ...login(), '-t', 'quackd/bridge/request/status', '-l'], { stdio: ['pipe', 'ignore', 'ignore'] });
          asking = setInterval(() => pub?.stdin?.write('{}\n'), 50);
        }
        const [states0, answers0] = [states, answers];
        const t0 = performance.now();
        const outcome = await walk(served, 'microduck:jsonrpc', WALK_S);
        const wall = (performance.now() - t0) / 1000;
        // A dashboard that heard nothing measured nothing: say so rather than print a quiet 0.
        if (on && states === states0) throw new Error(`the MQTT subscriber heard no state of ${ROBOT} over the walk`);
        if (mode === 'asked' && answers === answers0) throw new Error('the status requests at 20 Hz got no answer');
        const rate = on ? `${fmt((states - states0) / wall)}${mode === 'asked' ? ` + ${fmt((answers - answers0) / wall)} asked` : ''}` : '-';
        await sleep(1500);
        const mine = served.stats.filter((s) => s.robot === ROBOT).map((s) => s.stats);
        const last = mine.reduce<ControlStats | undefined>((a, s) => (a === undefined || s.ticks >= a.ticks ? s : a), undefined);
        if (last === undefined) throw new Error('the loop published no stats');
        const name = { off: 'off (mqtt: false)', on: 'on (state_hz 20, sub)', asked: 'on + status at 20 Hz' }[mode];
        results.push({ name, stats: last });
        const l = last.lateMs;
        say(`${name.padEnd(22)}${`${fmt(l.p50, 3)} / ${fmt(l.p99, 3)} / ${fmt(l.max, 2)}`.padEnd(27)}${String(last.missed).padEnd(8)}${String(last.overruns).padEnd(10)}${String(last.ticks).padEnd(8)}${rate.padEnd(20)}${last.scheduling.slice(0, 14).padEnd(15)}${outcome.slice(0, 60)}`);
      } finally {
        clearInterval(asking);
        if (pub !== undefined) {
          pub.stdin?.end();
          pub.kill('SIGTERM');
          await exited(pub);
        }
        if (sub !== undefined) {
          sub.kill('SIGTERM');
          await exited(sub);
        }
        await served.stop();
      }
    }
    const [off, ...ons] = results;
    for (const r of off !== undefined ? ons : []) {
      const ratio = off!.stats.lateMs.p99 > 0 ? r.stats.lateMs.p99 / off!.stats.lateMs.p99 : Number.NaN;
      say(`${r.name} vs off: lateness p99 ${fmt(ratio, 2)}× (goal ≤ 1.1), missed ${r.stats.missed} vs ${off!.stats.missed}`);
    }
  }
  console.log(`cpu pressure after: ${cpuPressure()}`);
} finally {
  await rig?.cleanup();
  await servoTwin?.stop();
  await llm.close();
  CHILD.remove();
}
