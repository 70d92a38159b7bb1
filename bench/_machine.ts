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

/** The thread of this process with that name (`comm`): the control worker names its own `quackd-loop`. */
export function threadNamed(name: string): number | undefined {
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return undefined;
  }
  const tid = tids.find((t) => read(`/proc/self/task/${t}/comm`)?.trim() === name);
  return tid === undefined ? undefined : Number(tid);
}
