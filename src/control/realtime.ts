/**
 * Real-time scheduling for the control worker's thread. On a loaded 2-core machine a sleeping
 * thread at normal priority wakes up to ~3 ms late (it waits for another task's time slice);
 * under SCHED_FIFO it wakes within ~0.1 ms (measured: p99 2.9 → 0.1 ms). Node has no call for
 * it, so the worker finds its own thread id (/proc/thread-self) and has util-linux `chrt` set the
 * policy, once, before its first tick: the one thing this folder does outside its thread. It
 * also names its thread `quackd-loop`, so a person (`ps -L`, `top -H`) or a bench finds it.
 *
 * Best effort: without the privilege (root, CAP_SYS_NICE or an RLIMIT_RTPRIO), chrt or Linux,
 * the loop runs at normal priority and says so in its stats. `--reset-on-fork` keeps threads
 * the worker starts later (a plant's or a policy runtime's thread pool) at normal priority: a
 * spinning pool thread under SCHED_FIFO would starve the machine.
 */
import { execFile } from 'node:child_process';
import { readlinkSync, writeFileSync } from 'node:fs';

/** The control worker's thread name, as `ps -L`, `top -H` and /proc/<pid>/task/<tid>/comm show it. */
export const LOOP_THREAD_NAME = 'quackd-loop';

/**
 * Names the calling thread (at most 15 bytes), so a person or a bench finds the loop's thread
 * among node's: every thread of a Node process is called `node` otherwise. Best effort.
 */
export function nameThread(name: string): void {
  if (process.platform !== 'linux') return;
  try {
    writeFileSync('/proc/thread-self/comm', name.slice(0, 15));
  } catch {
    // An old kernel without /proc/thread-self, or a /proc mounted read-only: the name is a nicety.
  }
}

/** The loop's SCHED_FIFO priority unless told otherwise: below the kernel's interrupt threads (50). */
export const LOOP_PRIORITY = 10;

/** What a loop runs under when it asks for nothing: lock-step keeps no wall clock; a loop may be told not to ask. */
export const LOCKSTEP_SCHEDULING = 'normal (lock-step)';
export const UNASKED_SCHEDULING = 'normal (not asked for)';

/** A loop that asked for SCHED_FIFO and runs without it (no right to it, no chrt, not Linux). */
export const fifoRefused = (scheduling: string): boolean => !scheduling.startsWith('SCHED_FIFO') && scheduling !== LOCKSTEP_SCHEDULING && scheduling !== UNASKED_SCHEDULING;

const firstLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

/**
 * How long chrt may take to start and answer. It is a process of its own, at normal priority:
 * on a 2-core machine at load 30 it was seen taking over 2 s (the old limit) just to start.
 */
const CHRT_TIMEOUT_MS = 15_000;

/** `chrt --fifo --reset-on-fork ARGS`: resolves to '' when it did, else to why not (chrt's own words when it said any). */
function chrt(args: readonly string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile('chrt', ['--fifo', '--reset-on-fork', ...args], { timeout: CHRT_TIMEOUT_MS }, (err, _stdout, stderr) => {
      if (err === null) return resolve('');
      // chrt names itself: `chrt: failed to set pid 0's policy: Operation not permitted`.
      const said = stderr.trim().split('\n')[0] ?? '';
      resolve(said !== '' ? said : `chrt: ${err.killed ? `no answer within ${CHRT_TIMEOUT_MS / 1000} s` : firstLine(err)}`);
    });
  });
}

const NOT_LINUX = 'normal (SCHED_FIFO is asked for on Linux only)';

/**
 * Puts the calling thread under SCHED_FIFO at `priority` (1–99); says what it then runs under.
 * The thread id is read at once, on the calling thread; the answer comes later, so the thread
 * goes on (loading its plant) while chrt starts.
 */
export function raiseThreadPriority(priority: number): Promise<string> {
  if (process.platform !== 'linux') return Promise.resolve(NOT_LINUX);
  let tid: string;
  try {
    tid = readlinkSync('/proc/thread-self').split('/').pop() ?? '';
  } catch (err) {
    return Promise.resolve(`normal (${firstLine(err)})`);
  }
  return chrt(['--pid', String(priority), tid]).then((refused) => (refused === '' ? `SCHED_FIFO ${priority}` : `normal (${refused})`));
}

/**
 * What a control loop started by this process would run under, found by asking for it as the
 * loop does, for a `true` that exits at once (`quackd health`): `SCHED_FIFO 10`, or `normal (why)`.
 */
export function loopSchedulingHere(priority = LOOP_PRIORITY): Promise<string> {
  if (process.platform !== 'linux') return Promise.resolve(NOT_LINUX);
  return chrt([String(priority), 'true']).then((refused) => (refused === '' ? `SCHED_FIFO ${priority}` : `normal (${refused})`));
}
