/**
 * Watches one robot's control loop for a bench case, as a dashboard would: its `control:stats`
 * on the runtime's bus (the last snapshot, at close, covers the loop's whole life), its falls,
 * and what its worker thread (named `quackd-loop`) did meanwhile: ms on a CPU, ms waiting runnable
 * for one (Linux's schedstat, sampled with each snapshot).
 */
import { LOOP_THREAD_NAME } from '../src/control/realtime.js';
import type { ControlStats } from '../src/control/stats.js';
import type { Runtime } from '../src/runtime/runtime.js';
import { cpuMs, runqueueMs, threadNamed } from './_machine.js';
import { fmt } from './_stats.js';

export interface LoopWatch {
  /** the loop's last snapshot (at close: its whole life) */
  final(): ControlStats;
  readonly falls: number;
  /** the control worker's thread: ms it ran, ms it waited runnable for a CPU */
  worker(): { cpu: number; runq: number };
  stop(): void;
}

/** `trace` gets a line for each snapshot that changed (state, max, missed, overruns) and each fall. */
export function watchLoop(runtime: Runtime, robot: string, trace: (line: string) => void = () => undefined): LoopWatch {
  let last: ControlStats | undefined;
  let falls = 0;
  let tid: number | undefined;
  let first: { cpu: number; runq: number } | undefined;
  let now = { cpu: Number.NaN, runq: Number.NaN };
  const sample = () => {
    tid ??= threadNamed(LOOP_THREAD_NAME);
    if (tid === undefined) return;
    const s = { cpu: cpuMs(tid), runq: runqueueMs(tid) };
    // The thread is gone after close: keep the last sample it gave.
    if (Number.isNaN(s.cpu)) return;
    first ??= s;
    now = s;
  };
  const offStats = runtime.events.on('control:stats', (e) => {
    if (e.robot !== robot) return;
    const changed = last === undefined || e.stats.state !== last.state || e.stats.lateMs.max > last.lateMs.max || e.stats.missed > last.missed || e.stats.overruns > last.overruns;
    last = e.stats;
    if (changed) trace(`stats ${e.stats.state.padEnd(8)} ticks ${e.stats.ticks} late p99/max ${fmt(e.stats.lateMs.p99, 2)}/${fmt(e.stats.lateMs.max, 2)} work max ${fmt(e.stats.workMs.max, 2)} missed ${e.stats.missed} overruns ${e.stats.overruns}`);
    if (e.stats.state !== 'closed') sample();
  });
  const offFell = runtime.events.on('control:fell', (e) => {
    if (e.robot !== robot) return;
    falls += 1;
    trace(`fell: tilt ${fmt((e.tiltRad * 180) / Math.PI, 0)}° at tick ${e.tick}`);
  });
  return {
    final: () => {
      if (last === undefined) throw new Error('the loop published no stats');
      return last;
    },
    get falls() {
      return falls;
    },
    worker: () => ({ cpu: now.cpu - (first?.cpu ?? Number.NaN), runq: now.runq - (first?.runq ?? Number.NaN) }),
    stop: () => {
      offStats();
      offFell();
    },
  };
}
