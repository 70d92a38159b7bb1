/**
 * One program on a serial port at a time, for the worker's plain-tty path (tty.ts): the lock
 * serialport takes on Linux, flock(LOCK_EX | LOCK_NB) on the open descriptor, so a second quackd,
 * the same quackd twice, `quackd bridge probe` (serialport) or a serial monitor that locks
 * (picocom) is refused, and refuses us. Node has no flock(2); flock(1) takes it on a descriptor it
 * inherits. A flock belongs to the open file description, which the child shares, so the lock
 * outlives the child and is gone when quackd closes the port or dies: no lock file to go stale
 * after a crash, and nothing to write in /run/lock.
 */
import { spawnSync } from 'node:child_process';
import { PortError } from './errors.js';
import { portHeld } from './open-refusal.js';

/** flock(1)'s exit status when someone else holds the lock (util-linux and busybox alike). */
const HELD = 1;

/** Locks `fd` (open on `path`) for this process, or throws a PortError saying why not. */
export function lockPort(fd: number, path: string): void {
  // The child's fd 3 is `fd`, the same open file description.
  const r = spawnSync('flock', ['-n', '3'], { stdio: ['ignore', 'ignore', 'pipe', fd], timeout: 5000 });
  if (r.status === 0) return;
  if (r.error !== undefined && (r.error as NodeJS.ErrnoException).code === 'ENOENT') {
    throw new PortError(`cannot lock ${path}: flock is not installed`, 'install util-linux (it has flock): quackd keeps other programs off the port with it');
  }
  // The line serial.ts says when serialport cannot lock it: both paths say the same.
  if (r.status === HELD) throw portHeld(path);
  const said = (r.stderr?.toString() ?? '').trim().split('\n')[0];
  throw new PortError(`cannot lock ${path}: ${said !== undefined && said !== '' ? said : (r.error?.message ?? `flock exited with ${r.status ?? r.signal ?? 'nothing'}`)}`);
}
