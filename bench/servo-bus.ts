/**
 * Bench: a servo bus's time per control tick over a paced pty. Each tick reads every joint's
 * position and velocity in one sync read and writes every target in one sync write (14 servos,
 * the Open Duck Mini v2's count), back to back, against the servo simulator in a process of its
 * own pacing bytes at the baud rate as a wire would. Printed beside the wire time of the same
 * bytes at that rate (8N1: ten bits a byte): ratio 1.0 means the software adds nothing to what
 * the wire takes; the goal is ≤ 1.3×. The sync read alone (the tick's wait) is a second row, and
 * the same ticks against an unpaced simulator are the floor: what the pty, socat and Node's I/O
 * cost with no wire at all (on a loaded machine most of the ratio's excess is there).
 *
 *   node --import tsx bench/servo-bus.ts [--ticks N] [--baud N]
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { SerialLink } from '../src/bridge/serial.js';
import { ServoBus, wireMs } from '../src/servo-bus/bus.js';
import { modelByName } from '../src/servo-bus/models.js';
import type { ProtocolName } from '../src/servo-bus/packet.js';
import { protocolNamed } from '../src/servo-bus/protocol.js';
import { PtyPair, live, onPath, waitFor } from '../test/helpers/pty-pair.js';

const { values } = parseArgs({ options: { ticks: { type: 'string', default: '500' }, baud: { type: 'string', default: '1000000' } } });
const TICKS = Number(values.ticks);
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
  readonly readBytes: number;
  readonly writeBytes: number;
}

async function run(protocol: ProtocolName, model: string, paced: boolean): Promise<Run> {
  const m = modelByName(model);
  if (m === undefined) throw new Error(`no model ${model}`);
  const r = m.registers;
  // Velocity and position side by side: Feetech 56–59 (position, then speed), Dynamixel 128–135 (velocity, then position).
  const readAt = Math.min(r.presentPosition.address, r.presentVelocity.address);
  const readLen = r.presentPosition.size + r.presentVelocity.size;
  const pty = await new PtyPair('quackd-bench-bus-').open();
  const sim = live(spawn(process.execPath, ['--import', 'tsx', SIM, pty.far, JSON.stringify({ protocol, ...(paced ? { baud: BAUD } : {}), servos: IDS.map((id) => ({ id, model })) })], { stdio: ['pipe', 'pipe', 'inherit'] }));
  let ready = false;
  sim.stdout?.on('data', () => (ready = true));
  await waitFor('the simulator', () => ready, 15_000);
  const p = protocolNamed(protocol);
  // Patient: a loaded machine may stall a turn; the figures are the ticks, not the timeouts (counted below).
  const bus = new ServoBus({ protocol: p, baud: BAUD, timeoutMs: 500, retries: 2 });
  const link = await SerialLink.open(bus, { path: pty.near, baud: BAUD, reconnect: false });
  const goal = (i: number): Uint8Array => Uint8Array.from({ length: r.goalPosition.size }, (_, b) => (b === 0 ? i & 0xff : b === 1 ? 0x08 : 0));
  try {
    const ticks: number[] = [];
    const reads: number[] = [];
    for (let t = -50; t < TICKS; t++) {
      const start = performance.now();
      await bus.syncRead(IDS, readAt, readLen);
      const read = performance.now() - start;
      await bus.syncWrite(r.goalPosition.address, new Map(IDS.map((id) => [id, goal(t + id)])));
      if (t < 0) continue; // warm-up
      reads.push(read);
      ticks.push(performance.now() - start);
    }
    const readBytes = p.syncRead(IDS, readAt, readLen).length + IDS.length * p.statusBytes(readLen);
    const writeBytes = p.syncWrite(r.goalPosition.address, r.goalPosition.size, IDS.map((id) => [id, goal(id)])).length;
    const c = bus.counters();
    if (c.retries + c.timeouts + c.checksum + c.unexpected > 0) console.log(`  bus counters (${paced ? 'paced' : 'unpaced'}): retries ${c.retries} · checksum ${c.checksum} · timeouts ${c.timeouts} · unexpected ${c.unexpected}`);
    return { ticks, reads, readBytes, writeBytes };
  } finally {
    bus.close();
    await link.close();
    sim.stdin?.end();
    sim.kill('SIGTERM');
    await pty.close();
  }
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const ms = (x: number): string => `${x.toFixed(2)} ms`;

async function measure(protocol: ProtocolName, model: string): Promise<void> {
  const paced = await run(protocol, model, true);
  const floor = await run(protocol, model, false);
  // Back to back, a tick's end is the next one's start: the write's wire time lands in the next read's wait.
  const tickWire = wireMs(paced.readBytes + paced.writeBytes, BAUD);
  const readWire = wireMs(paced.readBytes, BAUD);
  const p50 = quantile(paced.ticks, 0.5);
  console.log(`${protocol}: ${IDS.length} × ${model} at ${BAUD} baud, ${TICKS} ticks (sync read ${paced.readBytes} B + sync write ${paced.writeBytes} B on the wire)`);
  console.log(`  tick       p50 ${ms(p50)} · mean ${ms(mean(paced.ticks))} · p99 ${ms(quantile(paced.ticks, 0.99))}   wire ${ms(tickWire)}   ratio p50 ${(p50 / tickWire).toFixed(2)}× · mean ${(mean(paced.ticks) / tickWire).toFixed(2)}× (goal ≤ 1.3×)`);
  console.log(`  sync read  p50 ${ms(quantile(paced.reads, 0.5))} · p99 ${ms(quantile(paced.reads, 0.99))}   wire ${ms(readWire)}   ratio p50 ${(quantile(paced.reads, 0.5) / readWire).toFixed(2)}×`);
  console.log(`  floor      the same ticks unpaced (no wire): p50 ${ms(quantile(floor.ticks, 0.5))} · p99 ${ms(quantile(floor.ticks, 0.99))}`);
}

if (!onPath('socat')) {
  console.log('servo-bus: skipped (needs socat)');
} else {
  await measure('feetech', 'STS3215');
  await measure('dynamixel', 'XL330-M288');
}
