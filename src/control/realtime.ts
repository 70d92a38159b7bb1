/**
 * Real-time scheduling for the control worker's thread. On a loaded 2-core machine a sleeping
 * thread at normal priority wakes up to ~3 ms late (it waits for another task's time slice);
 * under SCHED_FIFO it wakes within ~0.1 ms (measured: p99 2.9 → 0.1 ms). Node has no call for
 * it, so the worker finds its own thread id (/proc/thread-self) and has util-linux `chrt` set the
 * policy, once, before its first tick: the one thing this folder does outside its thread.
 *
 * Best effort: without the privilege (root, CAP_SYS_NICE or an RLIMIT_RTPRIO), chrt or Linux,
 * the loop runs at normal priority and says so in its stats. `--reset-on-fork` keeps threads
 * the worker starts later (a plant's or a policy runtime's thread pool) at normal priority: a
 * spinning pool thread under SCHED_FIFO would starve the machine.
 */
import { execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';

const firstLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

/** Puts the calling thread under SCHED_FIFO at `priority` (1–99); says what it is running under. */
export function raiseThreadPriority(priority: number): string {
  if (process.platform !== 'linux') return 'normal (SCHED_FIFO is asked for on Linux only)';
  try {
    const tid = readlinkSync('/proc/thread-self').split('/').pop() ?? '';
    execFileSync('chrt', ['--fifo', '--reset-on-fork', '--pid', String(priority), tid], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 2000 });
    return `SCHED_FIFO ${priority}`;
  } catch (err) {
    const said = err instanceof Error && 'stderr' in err && err.stderr instanceof Buffer ? err.stderr.toString().trim().split('\n')[0] : undefined;
    return `normal (chrt: ${said !== undefined && said !== '' ? said : firstLine(err)})`;
  }
}
