/**
 * A USB serial adapter's latency timer as its driver shows it in sysfs (ftdi_sio has one: the
 * U2D2, many RS-485 boards). The adapter holds a short reply until the timer runs out, so a timer
 * longer than a servo transaction's wait times the reply out however fast the servo answered.
 * Read-only; undefined where the port has no such file (a CH340 board, a pty, no sysfs).
 */
import { readFileSync, realpathSync } from 'node:fs';
import { basename, join } from 'node:path';

/** The sysfs file of the port's tty (a by-id link followed; the path's own name when it cannot be followed). */
function timerFile(port: string, sys: string): string {
  let tty: string;
  try {
    tty = basename(realpathSync(port));
  } catch {
    tty = basename(port);
  }
  return join(sys, 'class/tty', tty, 'device/latency_timer');
}

/** Milliseconds, from `/sys/class/tty/<tty>/device/latency_timer` of the port's device. */
export function latencyTimerMs(port: string, sys = '/sys'): number | undefined {
  try {
    const ms = Number(readFileSync(timerFile(port, sys), 'utf8').trim());
    return Number.isInteger(ms) && ms >= 0 ? ms : undefined;
  } catch {
    return undefined;
  }
}

/** What a user types to shorten it now (it lasts until the adapter is unplugged, as quackd's own request does). */
export function latencyTimerFix(port: string, sys = '/sys'): string {
  return `echo 1 | sudo tee ${timerFile(port, sys)}`;
}

/**
 * Why every servo seemed silent, when the adapter is the cause: its latency timer at or over the
 * wait for a reply (the driver refused low latency, or another program set the timer back), so
 * each reply came after the bus had given up on it. Undefined when the timer is shorter or unknown.
 */
export function slowAdapterHint(port: string, waitMs: number, sys = '/sys'): string | undefined {
  const timer = latencyTimerMs(port, sys);
  if (timer === undefined || timer < waitMs) return undefined;
  return `the adapter holds each reply ${timer} ms (its latency timer), at or over the ${waitMs} ms a servo is waited for: ${latencyTimerFix(port, sys)}`;
}
