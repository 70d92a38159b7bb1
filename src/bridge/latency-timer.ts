/**
 * A USB serial adapter's latency timer as its driver shows it in sysfs (ftdi_sio has one: the
 * U2D2, many RS-485 boards). The adapter holds a short reply until the timer runs out, so a timer
 * longer than a servo transaction's wait times the reply out however fast the servo answered.
 * Read-only; undefined where the port has no such file (a CH340 board, a pty, no sysfs).
 */
import { readFileSync, realpathSync } from 'node:fs';
import { basename, join } from 'node:path';

/** Milliseconds, from `/sys/class/tty/<tty>/device/latency_timer` of the port's device (a by-id path followed to its tty). */
export function latencyTimerMs(port: string, sys = '/sys'): number | undefined {
  try {
    const tty = basename(realpathSync(port));
    const ms = Number(readFileSync(join(sys, 'class/tty', tty, 'device/latency_timer'), 'utf8').trim());
    return Number.isInteger(ms) && ms >= 0 ? ms : undefined;
  } catch {
    return undefined;
  }
}

/** What a user types to shorten it now (it lasts until the adapter is unplugged, as quackd's own request does). */
export function latencyTimerFix(port: string): string {
  let tty: string;
  try {
    tty = basename(realpathSync(port));
  } catch {
    tty = basename(port);
  }
  return `echo 1 | sudo tee /sys/class/tty/${tty}/device/latency_timer`;
}
