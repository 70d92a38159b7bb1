/**
 * Bench: does anything on the main thread disturb the 50 Hz control loop in its worker? The loop
 * drives the kinematic test plant (14 joints, a slow ramp as the verb) for S seconds in each case:
 *   idle    the main thread does nothing (the baseline);
 *   busy    the main thread is kept busy the way a run keeps it: synchronous transcript-like work
 *           (build, JSON.stringify, parse and appendFileSync 2000 events at a time, tens of ms
 *           without yielding, back to back) and
 *           an HTTP server answering slowly (200 ms, 64 KiB JSON, as a slow LLM) to 8 requests
 *           always in flight from the same thread;
 *   busy, normal priority   the same with the worker left at normal priority (no SCHED_FIFO), to
 *           show what the real-time scheduling buys on this machine.
 * Jitter is measured twice: by the loop (how late each tick started against its slot) and at the
 * far end (the plant's send times: |interval − period|). Goal: p99 ≤ 1 ms and 0 missed ticks.
 *
 *   node --import tsx bench/control.ts [--seconds S]
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { ControlLoop } from '../src/control/control-loop.js';
import type { ControlStats, Spread } from '../src/control/stats.js';
import { EventBus } from '../src/runtime/events.js';
import type { PlantLog } from '../test/control/kinematic-plant.js';
import { cpuPressure } from './_machine.js';
import { fmt, percentile } from './_stats.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '20' } } });
const SECONDS = Number(values.seconds);
const PERIOD_MS = 20;
const PLANT = new URL('../test/control/kinematic-plant.ts', import.meta.url).href;
const SKILLS = new URL('../test/control/test-skills.ts', import.meta.url).href;
const dir = mkdtempSync(join(tmpdir(), 'quackd-bench-control-'));

interface CaseResult {
  readonly name: string;
  readonly stats: ControlStats;
  readonly far: Spread;
  /** the main thread's own event-loop delay, p99 ms: proof that it was busy */
  readonly mainDelayP99: number;
  /** sends per second at the far end */
  readonly hz: number;
}

/** The main-thread load: returns its stop function. */
function busyMainThread(port: number): () => void {
  let running = true;
  const file = join(dir, 'transcript.jsonl');
  const work = () => {
    if (!running) return;
    const lines: string[] = [];
    for (let i = 0; i < 2000; i += 1) {
      const event = { ts: new Date().toISOString(), run: 'bench', type: 'frame', step: i, state: { x: i / 7, y: -i / 3, heading: i % 360, ball: { bearing: 5, distance: 3.28 } }, picture: 'x'.repeat(200) };
      lines.push(JSON.stringify(JSON.parse(JSON.stringify(event))));
    }
    appendFileSync(file, lines.join('\n') + '\n');
    setImmediate(work);
  };
  const ask = () => {
    if (!running) return;
    const req = request({ port, path: '/v1/chat/completions', method: 'POST' }, (res) => {
      res.resume();
      res.on('end', ask);
    });
    req.on('error', () => undefined);
    req.end(JSON.stringify({ model: 'slow', messages: [{ role: 'user', content: 'think' }] }));
  };
  work();
  for (let i = 0; i < 8; i += 1) ask();
  return () => {
    running = false;
  };
}

function slowServer(): Promise<Server> {
  const body = JSON.stringify({ choices: [{ message: { content: 'y'.repeat(64 * 1024) } }] });
  const server = createServer((req, res) => {
    req.resume();
    setTimeout(() => res.end(body), 200);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function runCase(name: string, busy: boolean, realtimePriority: number | false): Promise<CaseResult> {
  const log = join(dir, `${name.replace(/\W+/g, '-')}.json`);
  const events = new EventBus();
  let final: ControlStats | undefined;
  events.on('control:stats', (e) => (final = e.stats));
  const server = busy ? await slowServer() : undefined;
  const address = server?.address();
  const stopLoad = server !== undefined && typeof address === 'object' && address !== null ? busyMainThread(address.port) : () => undefined;
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const loop = await ControlLoop.start({ plant: { module: PLANT, options: { joints: 14, min: -3, max: 3, log } }, periodMs: PERIOD_MS, events, realtimePriority });
  const verb = loop.run({ module: SKILLS, options: { kind: 'ramp', joint: 3, velocity: 0.05 } });
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  loop.stop();
  await verb;
  await loop.close();
  delay.disable();
  stopLoad();
  await new Promise<void>((resolve) => (server !== undefined ? server.close(() => resolve()) : resolve()));
  server?.closeAllConnections();
  if (final === undefined) throw new Error(`${name}: no stats were published`);
  const { sends } = JSON.parse(readFileSync(log, 'utf8')) as PlantLog;
  // The far end's view: consecutive sends, |interval − period| (a skipped slot would show as a period).
  const gaps = sends.slice(1).map((s, i) => Math.abs(s.t - (sends[i]?.t ?? s.t) - PERIOD_MS));
  const far = { p50: percentile(gaps, 50), p99: percentile(gaps, 99), max: Math.max(...gaps) };
  const span = (sends.at(-1)?.t ?? 0) - (sends[0]?.t ?? 0);
  return { name, stats: final, far, mainDelayP99: delay.percentile(99) / 1e6, hz: ((sends.length - 1) / span) * 1000 };
}

const ms = (s: Spread) => `${fmt(s.p50, 3)} / ${fmt(s.p99, 3)} / ${fmt(s.max, 2)}`;
const ratio = (a: number, b: number) => (b > 0 ? `${fmt(a / b, 2)}×` : 'n/a');

console.log(`control loop, ${1000 / PERIOD_MS} Hz, ${SECONDS} s a case · cpu pressure before: ${cpuPressure()}`);
try {
  const idle = await runCase('idle', false, 10);
  const cases = [idle, await runCase('busy', true, 10), await runCase('busy, normal priority', true, false)];
  console.log(`${'case'.padEnd(24)}${'scheduling'.padEnd(26)}${'tick lateness p50/p99/max ms'.padEnd(32)}${'send-interval jitter p50/p99/max ms'.padEnd(38)}missed  overruns  hz     main-thread delay p99`);
  for (const c of cases) {
    const s = c.stats;
    console.log(
      `${c.name.padEnd(24)}${s.scheduling.slice(0, 25).padEnd(26)}${ms(s.lateMs).padEnd(32)}${ms(c.far).padEnd(38)}${String(s.missed).padEnd(8)}${String(s.overruns).padEnd(10)}${fmt(c.hz, 2).padEnd(7)}${fmt(c.mainDelayP99, 1)} ms`,
    );
  }
  for (const c of cases.slice(1)) {
    console.log(
      `${c.name} vs idle: lateness p50 ${ratio(c.stats.lateMs.p50, idle.stats.lateMs.p50)}, p99 ${ratio(c.stats.lateMs.p99, idle.stats.lateMs.p99)}, max ${ratio(c.stats.lateMs.max, idle.stats.lateMs.max)}; far-end jitter p99 ${ratio(c.far.p99, idle.far.p99)}`,
    );
  }
  const busy = cases[1];
  if (busy !== undefined) {
    const met = busy.stats.lateMs.p99 <= 1 && busy.far.p99 <= 1 && busy.stats.missed === 0;
    console.log(`goal (busy: p99 ≤ 1 ms, 0 missed): ${met ? 'met' : 'NOT met'} · cpu pressure after: ${cpuPressure()}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
