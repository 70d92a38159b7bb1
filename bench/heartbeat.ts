/**
 * Bench: does anything on quackd's main thread starve the bridge heartbeat? The firmware cuts
 * torque after 200 ms without one, so the largest gap between heartbeats on the wire is the
 * figure that matters. Gaps are timed outside this process: socat relays the pty pair with `-x`
 * and stamps every block quackd writes, into a file, so a stalled event loop here cannot hide
 * its own stall. Two cases, each on a fresh pty pair and host firmware:
 *   idle  a BridgeClient attached to the port and nothing else happening;
 *   run   a real run (startRun) of a duck on microduck:jsonrpc over the same kind of link, whose
 *         body's own client sends the heartbeats (from the control worker, where the link
 *         lives), with an instant pilot that quacks and `remember`s a note every step:
 *         transcript lines, bridge requests and memory writes as fast as the loop can go;
 *   stall the same run on a disk that now and then takes a long time over a write, as an SD card
 *         does while it flushes: every Nth write to a file takes S ms. Simulated, in this process
 *         only: fs.writeSync blocks for S ms, fs.write completes S ms late (its threadpool thread
 *         is what would wait). serialport captured fs.write when it loaded, so the link is spared.
 *
 * Beside each wire figure: 'sent', the largest gap between heartbeats as the client handed them to
 * the link in this process (its timers firing), and 'runq', how long this process's main thread
 * was ready to run but waiting for a CPU. A wire gap well above 'sent' was lost outside quackd's
 * event loop (the OS scheduling socat or the pty, a neighbour's load); a 'sent' gap is quackd's.
 * socat and the firmware stand for hardware and run under SCHED_FIFO where allowed
 * (test/helpers/hardware-priority.ts; the first line says which), so a wire gap is not the relay's.
 *
 *   node --import tsx bench/heartbeat.ts [--seconds S] [--steps N] [--rounds N] [--stall-ms S] [--stall-every N]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs, { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { BridgeClient, DEFAULT_HEARTBEAT_MS } from '../src/bridge/client.js';
import { encodeFrame } from '../src/bridge/frame.js';
import { encodeMessage } from '../src/bridge/protocol.js';
import { SerialLink } from '../src/bridge/serial.js';
import { parseDuck } from '../src/ducks/parse.js';
import { openRunMemory } from '../src/run/open-run-memory.js';
import type { PilotResponse, Provider } from '../src/pilot/providers/provider.js';
import { startRun } from '../src/run/start-run.js';
import { yesGate } from '../src/safety/gate.js';
import { TranscriptWriter } from '../src/transcript/writer.js';
import { FW_HOST, buildFirmware, missingTools, sleep, waitFor } from '../test/bridge/rig.js';
import { asHardware, rigScheduling } from '../test/helpers/hardware-priority.js';
import { onPath } from '../test/helpers/pty-pair.js';
import { runqueueMs } from './_machine.js';
import { fmt, median, percentile } from './_stats.js';

/** Half the firmware's 200 ms watchdog: the margin a heartbeat gap must stay inside. */
const MARGIN_MS = 100;
const HEARTBEAT = encodeFrame(encodeMessage('heartbeat', {}));

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** A pty pair relayed by `socat -x` (its log in a file) with quackd-fw-host on the far end. */
class TappedLink {
  readonly dir = mkdtempSync(join(tmpdir(), 'quackd-beat-'));
  readonly hostPath = join(this.dir, 'host');
  private readonly fwPath = join(this.dir, 'fw');
  private readonly logPath = join(this.dir, 'socat.log');
  private readonly children: ChildProcess[] = [];

  static async start(): Promise<TappedLink> {
    const link = new TappedLink();
    try {
      // A file, not a pipe: a pipe we are slow to drain would stall socat's relaying too.
      const log = openSync(link.logPath, 'w');
      link.spawn('socat', ['-x', `pty,raw,echo=0,link=${link.hostPath}`, `pty,raw,echo=0,link=${link.fwPath}`], ['ignore', 'ignore', log]);
      closeSync(log);
      await waitFor('socat pty links', () => existsSync(link.hostPath) && existsSync(link.fwPath));
      const fw = link.spawn(FW_HOST, ['--port', link.fwPath], ['ignore', 'ignore', 'pipe']);
      let said = '';
      fw.stderr?.setEncoding('utf8');
      fw.stderr?.on('data', (s: string) => (said += s));
      await waitFor('the firmware to be ready', () => said.includes('ready on') || fw.exitCode !== null);
      if (!said.includes('ready on')) throw new Error(`quackd-fw-host exited: ${said}`);
    } catch (err) {
      await link.stop();
      throw err;
    }
    return link;
  }

  private spawn(cmd: string, args: string[], stdio: ['ignore', 'ignore', number | 'pipe']): ChildProcess {
    const child = spawn(...asHardware(cmd, args), { stdio });
    live.add(child);
    child.once('exit', () => live.delete(child));
    this.children.push(child);
    return child;
  }

  /** Times (ms) at which socat relayed each complete heartbeat frame from quackd to the firmware. */
  heartbeats(): number[] {
    const blocks: { at: number[]; bytes: number[] }[] = [];
    for (const line of readFileSync(this.logPath, 'utf8').split('\n')) {
      const head = /^([<>]) (\d+)\/(\d+)\/(\d+) (\d+):(\d+):(\d+)\.(\d+) /.exec(line);
      if (head !== null) {
        const [, dir, ...f] = head;
        const n = f.map(Number);
        blocks.push({ at: dir === '>' ? n : [], bytes: [] });
      } else if (line.startsWith(' ') && blocks.length > 0) {
        blocks.at(-1)?.bytes.push(...line.trim().split(/\s+/).map((h) => parseInt(h, 16)));
      }
    }
    const out = blocks.filter((b) => b.at.length > 0);
    // socat 1.7.4 prints microseconds zero-padded to nine digits (`.000123456`), newer ones
    // nanoseconds: over a few seconds of blocks only nanoseconds ever reach 10^6.
    const scale = out.some((b) => (b.at[6] ?? 0) >= 1e6) ? 1e-6 : 1e-3;
    const times: number[] = [];
    let tail: number[] = [];
    for (const b of out) {
      const [y = 0, mo = 1, d = 1, h = 0, mi = 0, s = 0, frac = 0] = b.at;
      const at = new Date(y, mo - 1, d, h, mi, s).getTime() + frac * scale;
      // A frame may straddle two blocks: keep the last few bytes of the one before.
      const bytes = [...tail, ...b.bytes];
      for (let i = 0; i + HEARTBEAT.length <= bytes.length; i++) {
        if (HEARTBEAT.every((x, k) => bytes[i + k] === x)) times.push(at);
      }
      tail = bytes.slice(Math.max(0, bytes.length - HEARTBEAT.length + 1));
    }
    return times;
  }

  async stop(): Promise<void> {
    for (const child of this.children) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** When each heartbeat was handed to the link, by any client in this process (ms, epoch). */
let handed: number[] = [];
const notify = BridgeClient.prototype.notify;
BridgeClient.prototype.notify = function (this: BridgeClient, ...args: Parameters<typeof notify>): void {
  if (args[0] === 'heartbeat') handed.push(performance.timeOrigin + performance.now());
  Reflect.apply(notify, this, args);
} as typeof notify;

/** The clock of one case: the event loop's delay, the heartbeats handed over, the main thread's CPU waits. */
function startClock(): { loop: ReturnType<typeof monitorEventLoopDelay>; runq: number } {
  handed = [];
  return { loop: loopDelay(), runq: runqueueMs() };
}

const maxGap = (times: readonly number[]): number => Math.max(...times.slice(1).map((t, i) => t - (times[i] ?? t)));

interface Gaps {
  readonly beats: number;
  /**
   * The largest gap between heartbeats handed to the link on this thread: what its own timers did.
   * Undefined for a run: the body's link lives in the control worker, whose heartbeats this
   * thread does not see (the wire's figures are the worker's).
   */
  readonly sentMax: number | undefined;
  /** How long this process's main thread waited, ready to run, for a CPU during the case. */
  readonly runq: number;
  /** The longest the event loop here was held (perf_hooks), for telling a stall here from one elsewhere. */
  readonly loopMax: number;
  readonly max: number;
  readonly p99: number;
  readonly p50: number;
}

function gaps(times: readonly number[], clock: ReturnType<typeof startClock>): Gaps {
  clock.loop.disable();
  // The first gap is from attach; the last may be cut by the close: both are real heartbeats.
  const g = times.slice(1).map((t, i) => t - (times[i] ?? t));
  return { beats: times.length, sentMax: handed.length >= 2 ? maxGap(handed) : undefined, runq: runqueueMs() - clock.runq, loopMax: clock.loop.max / 1e6, max: Math.max(...g), p99: percentile(g, 99), p50: median(g) };
}

function loopDelay(): ReturnType<typeof monitorEventLoopDelay> {
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  return h;
}

async function idle(seconds: number): Promise<Gaps> {
  const link = await TappedLink.start();
  try {
    const clock = startClock();
    const client = new BridgeClient();
    const serial = await SerialLink.open(client, { path: link.hostPath });
    await client.hello();
    await sleep(seconds * 1000);
    client.close();
    await serial.close();
    return gaps(link.heartbeats(), clock);
  } finally {
    await link.stop();
  }
}

/** A pilot that answers at once: quack, and remember a fresh note, every step. */
function busyPilot(): Provider {
  let call = 0;
  return {
    name: 'instant',
    model: 'none',
    next: (): Promise<PilotResponse> => {
      call += 1;
      const text = `step ${call}: the ball was last seen ${call % 360} degrees to the left of the sofa`;
      return Promise.resolve({ text: '', toolCalls: [{ id: `q${call}`, name: 'quack', args: {} }, { id: `r${call}`, name: 'remember', args: { text, topic: `spot ${call % 50}` } }] });
    },
  };
}

/** The simulated slow disk (see the stall case above); off while `every` is 0. */
const stall = { ms: 0, every: 0, n: 0 };
const stallNow = (args: readonly unknown[]): boolean => stall.every > 0 && typeof args[0] === 'number' && args[0] > 2 && ++stall.n % stall.every === 0;
const realWriteSync = fs.writeSync;
const realWrite = fs.write;
fs.writeSync = ((...args: unknown[]): number => {
  if (stallNow(args)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, stall.ms);
  return Reflect.apply(realWriteSync, fs, args) as number;
}) as typeof fs.writeSync;
fs.write = ((...args: unknown[]): void => {
  if (stallNow(args)) setTimeout(() => Reflect.apply(realWrite, fs, args), stall.ms);
  else Reflect.apply(realWrite, fs, args);
}) as typeof fs.write;
// `import { writeSync } from 'node:fs'` elsewhere sees the wrapped functions too.
syncBuiltinESMExports();

/** The run's writer, caught on its way out of create(): its synchronous writes, and how long each write() held the loop. */
let writer: TranscriptWriter | undefined;
let writeMs: number[] = [];
const create = TranscriptWriter.create.bind(TranscriptWriter);
TranscriptWriter.create = (dir, baseId) => {
  const w = create(dir, baseId);
  const write = w.write.bind(w);
  w.write = (event) => {
    const t = performance.now();
    const ok = write(event);
    writeMs.push(performance.now() - t);
    return ok;
  };
  writeMs = [];
  return (writer = w);
};

async function run(seconds: number, steps: number): Promise<Gaps & { steps: number; ms: number; lines: number; syncWrites: number; writeMs: readonly number[] }> {
  // Loaded before the clock starts, as dist loads it before a body's heartbeats begin.
  await import('../src/bodies/microduck/jsonrpc/jsonrpc-body.js');
  const link = await TappedLink.start();
  const home = mkdtempSync(join(tmpdir(), 'quackd-beat-home-'));
  try {
    const opened = await openRunMemory({ body: 'microduck:jsonrpc', dir: join(home, 'memory'), duck: 'beat' });
    if (opened.memory === undefined) throw new Error(`no memory: ${opened.notice ?? '?'}`);
    const duck = parseDuck(`---\nrobot: microduck:jsonrpc\nverbs: [quack]\nbudgets: { steps: ${steps}, llm_calls: 5000, seconds: ${seconds} }\n---\n# Beat\n\n1. Quack and remember.\n`, 'beat.duck', 'beat');
    const clock = startClock();
    const started = performance.now();
    const report = await startRun({ duck, robot: 'microduck:jsonrpc', seed: 1, provider: busyPilot(), gate: yesGate, dryRun: false, memory: opened.memory, transcriptsDir: join(home, 'transcripts'), signal: new AbortController().signal, bodySettings: { port: link.hostPath } });
    const ms = performance.now() - started;
    const figures = gaps(link.heartbeats(), clock);
    await opened.memory.close();
    if (report.outcome.status !== 'budget') throw new Error(`the run ended ${report.outcome.status}: ${report.outcome.reason}`);
    const lines = readFileSync(report.transcriptPath, 'utf8').split('\n').length - 1;
    return { ...figures, steps: report.steps, ms, lines, syncWrites: writer?.syncWrites ?? Number.NaN, writeMs };
  } finally {
    await link.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({ args: [...argv], options: { seconds: { type: 'string' }, steps: { type: 'string' }, rounds: { type: 'string' }, 'stall-ms': { type: 'string' }, 'stall-every': { type: 'string' } } });
  const seconds = Number(values.seconds ?? 5);
  const stallMs = Number(values['stall-ms'] ?? 150);
  const stallEvery = Number(values['stall-every'] ?? 300);
  const steps = Number(values.steps ?? 1000);
  const rounds = Number(values.rounds ?? 3);
  // socat here is the measuring instrument (its -x dump times each frame on the wire), not the rig's wire.
  const missing = missingTools() ?? (onPath('socat') ? undefined : 'needs socat (apt-get install socat)');
  if (missing !== undefined) {
    console.log(`heartbeat: skipped: ${missing}`);
    return;
  }
  buildFirmware();
  // Interleaved rounds: a neighbour's load on a shared machine then lands on both cases alike.
  const idles: Gaps[] = [];
  const runs: Awaited<ReturnType<typeof run>>[] = [];
  const stalled: (Awaited<ReturnType<typeof run>> & { stalls: number })[] = [];
  for (let r = 0; r < rounds; r++) {
    idles.push(await idle(seconds));
    runs.push(await run(seconds, steps));
    Object.assign(stall, { ms: stallMs, every: stallEvery, n: 0 });
    stalled.push({ ...(await run(seconds, steps)), stalls: Math.floor(stall.n / stall.every) });
    Object.assign(stall, { ms: 0, every: 0, n: 0 });
  }
  console.log(`heartbeat: every ${DEFAULT_HEARTBEAT_MS} ms; gaps as socat relayed them to quackd-fw-host (watchdog 200 ms); ${rounds} rounds; socat and the firmware ${rigScheduling()}`);
  console.log(`  'loop' is the longest this process's event loop was held (a CPU the OS gave to someone else counts too);`);
  console.log(`  'sent' the largest gap between heartbeats as this thread handed them to the link (the idle client's; a run's body sends them from its control worker: -); 'runq' how long its main thread waited for a CPU`);
  const head = `  ${'round  case'.padEnd(52)} ${'beats'.padStart(5)}  ${'p50 ms'.padStart(7)}  ${'p99 ms'.padStart(7)}  ${'max ms'.padStart(7)}  ${'sent ms'.padStart(7)}  ${'loop ms'.padStart(8)}  ${'runq ms'.padStart(7)}`;
  const row = (name: string, g: Gaps): string =>
    `  ${name.padEnd(52)} ${String(g.beats).padStart(5)}  ${fmt(g.p50).padStart(7)}  ${fmt(g.p99).padStart(7)}  ${fmt(g.max).padStart(7)}  ${(g.sentMax === undefined ? '-' : fmt(g.sentMax)).padStart(7)}  ${fmt(g.loopMax).padStart(8)}  ${fmt(g.runq, 0).padStart(7)}`;
  console.log(head);
  for (let r = 0; r < rounds; r++) {
    const a = idles[r];
    const b = runs[r];
    const c = stalled[r];
    if (a === undefined || b === undefined || c === undefined) continue;
    console.log(row(`${r + 1}      (a) idle client`, a));
    for (const [name, x] of [['(b) run', b], [`(c) ${c.stalls} stalls of ${stallMs} ms`, c]] as const) {
      console.log(row(`${r + 1}      ${name}: ${x.steps} steps, ${x.lines} lines, ${fmt(x.ms / 1000)} s`, x));
      const sum = x.writeMs.reduce((p, q) => p + q, 0);
      console.log(`         transcript write(): ${fmt(sum)} ms in all, p99 ${fmt(percentile(x.writeMs, 99) * 1000, 0)} µs, max ${fmt(Math.max(...x.writeMs), 2)} ms; synchronous batches ${x.syncWrites}`);
    }
  }
  const med = (xs: readonly Gaps[], f: (g: Gaps) => number): number => median(xs.map(f));
  const worst = (xs: readonly Gaps[], f: (g: Gaps) => number = (g) => g.max): number => Math.max(...xs.map(f));
  const cases = [['idle', idles], ['run', runs], ['stall', stalled]] as const;
  console.log(`  median of rounds: ${cases.map(([n, xs]) => `${n} p99 ${fmt(med(xs, (g) => g.p99))} max ${fmt(med(xs, (g) => g.max))}`).join(' · ')} ms`);
  for (const [n, xs] of cases.slice(1)) {
    console.log(
      `  ratio ${n}/idle: p99 ${fmt(med(xs, (g) => g.p99) / med(idles, (g) => g.p99), 2)}×, max ${fmt(med(xs, (g) => g.max) / med(idles, (g) => g.max), 2)}× (medians of rounds); largest of all rounds ${fmt(worst(xs) / worst(idles), 2)}× (${fmt(worst(xs))} / ${fmt(worst(idles))} ms)`,
    );
  }
  console.log(`  largest gap of all rounds under ${MARGIN_MS} ms (half the watchdog): ${cases.map(([n, xs]) => `${n} ${worst(xs) < MARGIN_MS ? 'yes' : 'NO'} (${fmt(worst(xs))})`).join(', ')}`);
  const sent = worst(idles, (g) => g.sentMax ?? Number.NaN);
  console.log(`  the same, as the idle client sent them: ${sent < MARGIN_MS ? 'yes' : 'NO'} (${fmt(sent)})`);
}

await main();
