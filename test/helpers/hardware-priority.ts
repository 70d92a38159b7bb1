/**
 * The rig's stand-ins for hardware (quackd-fw-host, the duck's microcontroller; the servo
 * simulators; socat where a bench still relays through it) run under SCHED_FIFO where this user
 * may ask for it (root, CAP_SYS_NICE or an RLIMIT_RTPRIO; CI runs as root). A microcontroller has
 * a CPU of its own and a USB link is never starved by the host's load; at normal priority on a
 * loaded machine the socat relay the bridge rig used then was seen passing no byte for 200–370 ms
 * and then a burst of heartbeats quackd had written on time, and the firmware's watchdog cut
 * torque. Under SCHED_FIFO the rig waits for nothing, so a test that fails
 * under load fails on quackd's account.
 *
 * Priority 20: above quackd's control loop (10), which the far end never waits on, and below the
 * kernel's interrupt threads (50). `--reset-on-fork`: nothing they might start inherits it. Under
 * CI the priority is required (a rig that may be starved would make a load test meaningless);
 * elsewhere they run at normal priority and `rigScheduling()` says why.
 */
import { spawnSync } from 'node:child_process';

export const RIG_PRIORITY = 20;

let verdict: { readonly ok: boolean; readonly why: string } | undefined;

function probe(): { readonly ok: boolean; readonly why: string } {
  if (process.platform !== 'linux') return { ok: false, why: 'SCHED_FIFO is asked for on Linux only' };
  const r = spawnSync('chrt', ['--fifo', '--reset-on-fork', String(RIG_PRIORITY), 'true'], { encoding: 'utf8', timeout: 5000 });
  if (r.status === 0) return { ok: true, why: '' };
  const said = r.error?.message ?? r.stderr.trim().split('\n')[0] ?? '';
  return { ok: false, why: `chrt: ${said === '' ? `exit ${r.status ?? r.signal ?? '?'}` : said}` };
}

/** What the rig's firmware and simulators run under: `SCHED_FIFO 20`, or `normal (why)`. */
export function rigScheduling(): string {
  verdict ??= probe();
  return verdict.ok ? `SCHED_FIFO ${RIG_PRIORITY}` : `normal (${verdict.why})`;
}

/**
 * The command and arguments to spawn for a piece of the rig that stands for hardware: under
 * `chrt --fifo 20` when allowed (chrt execs it, so the child's pid is the program's own and
 * signals reach it as before), as given otherwise. Throws under CI when it is not allowed.
 */
export function asHardware(command: string, args: readonly string[]): [string, string[]] {
  verdict ??= probe();
  if (verdict.ok) return ['chrt', ['--fifo', '--reset-on-fork', String(RIG_PRIORITY), command, ...args]];
  if (process.env['CI'] === 'true') throw new Error(`the test rig needs SCHED_FIFO for ${command} under CI (${verdict.why}); run as root`);
  return [command, [...args]];
}

/**
 * This process, for a rig that lives in the test itself (the servo twin: MuJoCo's physics and the
 * servos' registers): its main thread, where the physics steps and the registers answer, under
 * SCHED_FIFO 20 when allowed, reset on fork so the quackd a test spawns runs as it would; at
 * normal priority otherwise (required under CI, as above). Physics is never starved by the
 * host's load: at normal priority beside four busy processes the twin stepped late, caught up in
 * bursts on stale goals, and the duck fell in 0.9 s.
 *
 * The main thread only, not V8's helper threads (garbage collection, compilation): raised with
 * it (`--all-tasks`, as this was), four of them at once under SCHED_FIFO 20 took both cores of a
 * 2-core machine for 20-40 ms (perf sched: quackd's loop woken 24 ms late behind them, the
 * firmware and the pty relay, at their priority, waiting too), which no hardware does. Beside
 * four busy processes quackd's ticks then started up to 98 ms late (p99 1.5-3 ms), the host
 * firmware's 200 ms watchdog cut torque mid-run (once in CI) and a twin's walk fell (once in four
 * runs); with the main thread alone, p99 0.1-0.3 ms over eight runs of both twin files, neither seen. A rig
 * in a process of its own also gives V8 `--single-threaded-gc` (servo-twin-process.ts), so its
 * main thread never waits for a helper that the load starves.
 */
export function runThisProcessAsHardware(): void {
  verdict ??= probe();
  if (!verdict.ok) {
    if (process.env['CI'] === 'true') throw new Error(`the test rig needs SCHED_FIFO under CI (${verdict.why}); run as root`);
    return;
  }
  const r = spawnSync('chrt', ['--fifo', '--reset-on-fork', '--pid', String(RIG_PRIORITY), String(process.pid)], { encoding: 'utf8', timeout: 5000 });
  if (r.status !== 0) throw new Error(`chrt could not raise the rig's own process: ${r.stderr.trim() || `exit ${r.status ?? '?'}`}`);
}
