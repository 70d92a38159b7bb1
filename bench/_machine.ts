/** What the machine was doing while a bench case ran: CPU pressure and threads' waits for a CPU (Linux's /proc). */
import { readdirSync, readFileSync } from 'node:fs';

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/** The kernel's CPU pressure line (`avg10=… avg60=… avg300=… total=…`), or `n/a`. */
export const cpuPressure = (): string => read('/proc/pressure/cpu')?.split('\n')[0]?.replace(/^some /, '') ?? 'n/a';

/** How long (ms) a thread of this process (default the main thread) has waited, runnable, for a CPU; NaN elsewhere. */
export function runqueueMs(tid: number = process.pid): number {
  const stat = read(`/proc/self/task/${tid}/schedstat`);
  return stat === undefined ? Number.NaN : Number(stat.split(' ')[1]) / 1e6;
}

/** How long (ms) a thread of this process has run on a CPU; NaN elsewhere. */
export function cpuMs(tid: number = process.pid): number {
  const stat = read(`/proc/self/task/${tid}/schedstat`);
  return stat === undefined ? Number.NaN : Number(stat.split(' ')[0]) / 1e6;
}

/**
 * This process's threads under SCHED_FIFO: the control worker's, once chrt has raised it (its
 * --reset-on-fork keeps every other thread at normal priority). Field 41 of stat is the policy.
 */
export function fifoThreads(): number[] {
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return [];
  }
  return tids.map(Number).filter((tid) => {
    const stat = read(`/proc/self/task/${tid}/stat`);
    // The name field may hold spaces: count fields after its closing parenthesis.
    const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields?.[41 - 3] === '1';
  });
}
