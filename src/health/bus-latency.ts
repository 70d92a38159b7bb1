/**
 * `latency`, beside `bus`: whether a servo's reply reaches quackd as it comes. An FTDI adapter
 * (the U2D2, many RS-485 boards) holds a short reply until its latency timer runs out (16 ms by
 * default on Linux); quackd asks every port it opens for low latency, which sets the timer to
 * 1 ms, but a driver may refuse. A timer at or over the bus's wait times every reply out however
 * fast the servo answered; one under it still eats into the 20 ms of a 50 Hz tick.
 */
import type { LowLatency } from '../bridge/low-latency.js';
import { latencyTimerFix } from '../bridge/latency-timer.js';
import { fail, ok, warn, type HealthResult } from './check.js';

export interface PortLatency {
  readonly port: string;
  /** What the driver said to quackd's request on this open. */
  readonly lowLatency: LowLatency | undefined;
  /** The adapter's latency timer from sysfs, where its driver has one. */
  readonly timerMs: number | undefined;
  /** The servo bus's wait for a reply (bus_timeout_ms). */
  readonly busTimeoutMs: number;
}

/** Undefined where there is nothing to say: no timer, and the driver did not refuse (a CH340 board, a pty). */
export function latencyLine({ port, lowLatency, timerMs, busTimeoutMs }: PortLatency): HealthResult | undefined {
  const why = typeof lowLatency === 'object' ? lowLatency.refused : undefined;
  const refused = why !== undefined ? ` (low latency refused: ${why})` : '';
  if (timerMs === undefined) {
    if (why === undefined) return undefined;
    return { check: 'latency', ...warn(`${port}'s driver refused low latency (${why}): an FTDI adapter would hold each reply up to 16 ms · sudo setserial ${port} low_latency`) };
  }
  const timer = `the adapter's latency timer is ${timerMs} ms${refused}`;
  if (timerMs <= 1) return { check: 'latency', ...ok(`${timer}: replies come as they arrive`) };
  const fix = latencyTimerFix(port);
  if (timerMs >= busTimeoutMs) return { check: 'latency', ...fail(`${timer}, at or over bus_timeout_ms ${busTimeoutMs}: every reply waits for it and times out · ${fix}`) };
  return { check: 'latency', ...warn(`${timer}: each reply waits up to that long, of the 20 ms a tick has · ${fix}`) };
}
