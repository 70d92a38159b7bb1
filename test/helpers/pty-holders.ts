/**
 * Who holds a pty, read from /proc: what a rig test checks to say its wire is one pty with
 * nothing relaying between (test/bodies/servo-bus/twin-wire.test.ts, test/bridge/wire.test.ts).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The processes holding the master of /dev/pts/`index`: their fdinfo names it (`tty-index`). */
export function mastersOf(index: number): number[] {
  const holders = new Set<number>();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to read
    }
    for (const fd of fds) {
      try {
        if (!/^\/dev\/(pts\/)?ptmx$/.test(readlinkSync(`/proc/${pid}/fd/${fd}`))) continue;
        if (new RegExp(`^tty-index:\\s+${index}$`, 'm').test(readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'))) holders.add(Number(pid));
      } catch {
        // closed meanwhile
      }
    }
  }
  return [...holders];
}

export const commandOf = (pid: number): string => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');

/** Scheduling policy and real-time priority of `pid`'s main thread (/proc/PID/stat fields 41 and 40). */
export function schedulingOf(pid: number): { policy: number; priority: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  // Fields from 3 on (after the command's parentheses): rt_priority is field 40, policy 41.
  return { priority: Number(fields[40 - 3]), policy: Number(fields[41 - 3]) };
}
