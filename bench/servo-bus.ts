/**
 * Bench: a servo bus's time per control tick over a paced pty. Each tick writes every target in
 * one sync write and reads every joint's position and velocity in one sync read (14 servos, the
 * Open Duck Mini v2's count), back to back, as the control worker's plant does: over its link
 * (tty.ts, read when the replies are due), against the servo simulator in a process of its own
 * pacing bytes at the baud rate as a wire would. Printed beside the wire time of the same bytes
 * at that rate (8N1: ten bits a byte): ratio 1.0 means nothing is added to what the wire takes;
 * the goal is ≤ 1.3×. The wire is one pty this process holds (test/helpers/held-pty.ts): the bus
 * opens its slave as it would a USB adapter, the simulator reads and answers on its master,
 * inherited. The floor, measured in the same run, is what the pty itself adds: one ping's round
 * trip through the pty and an unpaced simulator (one kernel hand-off each way and the far
 * process's wake-up), read at once (the bus told the wire is instant). Every tick pays it once.
 * The bus runs as the control worker does, under SCHED_FIFO 10 where allowed, the simulator above
 * it (it stands for the servos' chips, which the host's load never starves).
 *
 *   node --import tsx bench/servo-bus.ts [--ticks N] [--runs N] [--baud N]
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import { TtyLink } from '../src/bridge/tty.js';
import { LOOP_PRIORITY, raiseThreadPriority } from '../src/control/realtime.js';
import { ServoBus, wireMs } from '../src/servo-bus/bus.js';
import { modelByName } from '../src/servo-bus/models.js';
import type { ProtocolName } from '../src/servo-bus/packet.js';
import { protocolNamed } from '../src/servo-bus/protocol.js';
import { asHardware, rigScheduling } from '../test/helpers/hardware-priority.js';
import { HeldPty } from '../test/helpers/held-pty.js';
import { live, waitFor } from '../test/helpers/pty-pair.js';
import { cpuMs } from './_machine.js';

const { values } = parseArgs({ options: { ticks: { type: 'string', default: '500' }, runs: { type: 'string', default: '3' }, baud: { type: 'string', default: '1000000' } } });
const TICKS = Number(values.ticks);
const RUNS = Number(values.runs);
const BAUD = Number(values.baud);
const IDS = Array.from({ length: 14 }, (_, i) => i + 1);
const SIM = new URL('../test/helpers/servo-sim-main.ts', import.meta.url).pathname;

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
}

interface Run {
  readonly ticks: readonly number[];
  readonly reads: readonly number[];
  /** Unpaced pings' round trips, read at once: the pty's own floor. */
  readonly floor: readonly number[];
  readonly readBytes: number;
  readonly writeBytes: number;
  /** CPU this thread spent a tick (encode, wait, decode), µs. */
  readonly cpuUs: number;
}

interface Rig {
  readonly bus: ServoBus;
  close(): Promise<void>;
}

async function rig(protocol: ProtocolName, model: string, paced: boolean): Promise<Rig> {
  const pty = await new HeldPty('quackd-bench-bus-').open();
  // The master is the simulator's fd 3; this process keeps its copy only to unplug the pty at the end, never reading it.
  const options = JSON.stringify({ protocol, ...(paced ? { baud: BAUD } : {}), servos: IDS.map((id) => ({ id, model })) });
  const sim = live(spawn(...asHardware(process.execPath, ['--import', 'tsx', SIM, options]), { stdio: ['pipe', 'pipe', 'inherit', pty.master] }));
  let ready = false;
  sim.stdout?.on('data', () => (ready = true));
  await waitFor('the simulator', () => ready, 15_000);
  // Patient: a loaded machine may stall a turn; the figures are the ticks, not the timeouts (counted below).
  // Unpaced, the bus is told the wire is instant: it reads at once, and what is left is the pty's own round trip.
  const bus = new ServoBus({ protocol: protocolNamed(protocol), baud: paced ? BAUD : 1e12, timeoutMs: 500, retries: 2 });
  const link = await TtyLink.open(bus, { path: pty.near, baud: BAUD, reconnect: false });
  return {
    bus,
    close: async () => {
      const c = bus.counters();
      if (c.retries + c.timeouts + c.checksum + c.unexpected > 0) console.log(`  bus counters (${paced ? 'paced' : 'unpaced'}): retries ${c.retries} · checksum ${c.checksum} · timeouts ${c.timeouts} · unexpected ${c.unexpected}`);
      bus.close();
      await link.close();
      sim.stdin?.end();
      sim.kill('SIGTERM');
      await pty.close();
    },
  };
}

async function run(protocol: ProtocolName, model: string): Promise<Run> {
  const m = modelByName(model);
  if (m === undefined) throw new Error(`no model ${model}`);
  const r = m.registers;
  const p = protocolNamed(protocol);
  // Velocity and position side by side: Feetech 56–59 (position, then speed), Dynamixel 128–135 (velocity, then position).
  const readAt = Math.min(r.presentPosition.address, r.presentVelocity.address);
  const readLen = r.presentPosition.size + r.presentVelocity.size;
  const goal = (i: number): Uint8Array => Uint8Array.from({ length: r.goalPosition.size }, (_, b) => (b === 0 ? i & 0xff : b === 1 ? 0x08 : 0));
  const ticks: number[] = [];
  const reads: number[] = [];
  const paced = await rig(protocol, model, true);
  let cpu = 0;
  try {
    for (let t = -50; t < TICKS; t++) {
      const start = performance.now();
      await paced.bus.syncRead(IDS, readAt, readLen);
      const read = performance.now() - start;
      await paced.bus.syncWrite(r.goalPosition.address, new Map(IDS.map((id) => [id, goal(t + id)])));
      if (t === -1) cpu = cpuMs();
      if (t < 0) continue; // warm-up
      reads.push(read);
      ticks.push(performance.now() - start);
    }
    cpu = cpuMs() - cpu;
  } finally {
    await paced.close();
  }
  const floor: number[] = [];
  const unpaced = await rig(protocol, model, false);
  try {
    for (let t = -50; t < TICKS; t++) {
      const start = performance.now();
      await unpaced.bus.ping(1);
      if (t >= 0) floor.push(performance.now() - start);
    }
  } finally {
    await unpaced.close();
  }
  const readBytes = p.syncRead(IDS, readAt, readLen).length + IDS.length * p.statusBytes(readLen);
  const writeBytes = p.syncWrite(r.goalPosition.address, r.goalPosition.size, IDS.map((id) => [id, goal(id)])).length;
  return { ticks, reads, floor, readBytes, writeBytes, cpuUs: (cpu * 1000) / TICKS };
}

const ms = (x: number): string => `${x.toFixed(2)} ms`;
const range = (xs: readonly number[]): string => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}×`;

async function measure(protocol: ProtocolName, model: string): Promise<void> {
  const ratios: number[] = [];
  const net: number[] = [];
  for (let i = 1; i <= RUNS; i++) {
    const load = loadavg()[0] ?? Number.NaN;
    const run1 = await run(protocol, model);
    // Back to back, a tick's end is the next one's start: the write's wire time lands in the next read's wait.
    const tickWire = wireMs(run1.readBytes + run1.writeBytes, BAUD);
    const readWire = wireMs(run1.readBytes, BAUD);
    const p50 = quantile(run1.ticks, 0.5);
    const floor = quantile(run1.floor, 0.5);
    ratios.push(p50 / tickWire);
    net.push((p50 - floor) / tickWire);
    if (i === 1) console.log(`${protocol}: ${IDS.length} × ${model} at ${BAUD} baud, ${TICKS} ticks a run (sync read ${run1.readBytes} B + sync write ${run1.writeBytes} B on the wire: ${ms(tickWire)}; the read ${ms(readWire)})`);
    console.log(
      `  run ${i} (load ${load.toFixed(1)}): tick p50 ${ms(p50)} · p99 ${ms(quantile(run1.ticks, 0.99))} = ${(p50 / tickWire).toFixed(2)}× wire (goal ≤ 1.3×) · sync read p50 ${ms(quantile(run1.reads, 0.5))} · pty floor p50 ${ms(floor)} · tick less floor ${((p50 - floor) / tickWire).toFixed(2)}× · CPU ${run1.cpuUs.toFixed(0)} µs a tick`,
    );
  }
  console.log(`  ${RUNS} runs: tick ${range(ratios)} wire; less the pty's floor ${range(net)}`);
}
// As the product runs: the bus on a thread under the control loop's SCHED_FIFO, the simulator (the servos' own chips) above it.
console.log(`bus thread: ${await raiseThreadPriority(LOOP_PRIORITY)} · simulator: ${rigScheduling()}`);
await measure('feetech', 'STS3215');
await measure('dynamixel', 'XL330-M288');
