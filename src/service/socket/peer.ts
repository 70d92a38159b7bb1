/**
 * Who is at the other end of a control-socket connection, as the kernel says (SO_PEERCRED), not
 * as the client says. Node cannot ask for SO_PEERCRED itself, so a perl one-liner is handed the
 * connection (perl-base is Essential on Debian and Raspberry Pi OS) and prints pid, uid and gid;
 * the groups come from /proc/<pid>/status. Asked once per connection, and only by a request that
 * needs it (a run, a stop, a gate's answer, torque): a spawn costs a few milliseconds.
 * Undefined when it cannot be told; the caller then refuses what needs it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';

export interface Peer {
  readonly pid: number;
  readonly uid: number;
  readonly gid: number;
  /** Supplementary groups, and the primary one. */
  readonly groups: readonly number[];
  /** The user's name from /etc/passwd, else `uid N`. */
  readonly user: string;
}

// fd 3 is the connection; its peer's struct ucred is three ints.
const SCRIPT = 'use Socket; open(my $s, "+<&=3") or exit 2; my $c = getsockopt($s, SOL_SOCKET, SO_PEERCRED) or exit 3; print join(" ", unpack("iii", $c)), "\\n";';
const DEADLINE_MS = 5000;

function userName(uid: number): string {
  try {
    const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.split(':')[2] === String(uid));
    const name = line?.split(':')[0];
    if (name !== undefined && name !== '') return name;
  } catch {
    // No passwd to read: the number says it.
  }
  return `uid ${uid}`;
}

function groupsOf(pid: number, gid: number): number[] {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('Groups:'));
    const groups = (line ?? '').slice('Groups:'.length).trim().split(/\s+/).filter((g) => g !== '').map(Number).filter(Number.isInteger);
    return [...new Set([gid, ...groups])];
  } catch {
    // The asker has gone: its primary group only (fewer rights, never more).
    return [gid];
  }
}

export function peerOf(socket: Socket): Promise<Peer | undefined> {
  return new Promise((resolve) => {
    let out = '';
    let child: ChildProcess;
    try {
      child = spawn('perl', ['-e', SCRIPT], { stdio: ['ignore', 'pipe', 'ignore', socket] });
    } catch {
      return resolve(undefined);
    }
    if (child.stdout === null) {
      child.kill();
      return resolve(undefined);
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', () => undefined);
    child.on('close', (code) => {
      clearTimeout(timer);
      // spawn() stopped our reading so that only the child would read; the child is done.
      if (!socket.destroyed) socket.resume();
      const [pid, uid, gid] = out.trim().split(' ').map(Number);
      if (code !== 0 || pid === undefined || uid === undefined || gid === undefined || ![pid, uid, gid].every((n) => Number.isInteger(n) && n >= 0)) return resolve(undefined);
      resolve({ pid, uid, gid, groups: groupsOf(pid, gid), user: userName(uid) });
    });
  });
}
