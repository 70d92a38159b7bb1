/**
 * A second, unprivileged OS account for a test of who may do what: made with useradd when the
 * test runs as root (CI does), in a group of its own; the test removes it (remove()) when done. Each
 * test process makes its own (the pid in the name), so files run side by side do not share one.
 * Elsewhere the tests that need it skip, saying why (or fail under CI: skip.ts).
 */
import { execFileSync, spawn } from 'node:child_process';
import { outputOf } from './cli.js';
import { skipOutsideCi } from './skip.js';

export interface OsUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
  /** Deletes the user and its groups: the test's own after() calls it. */
  remove(): void;
  /** Runs `node ...args` as this user (with its groups as they are now), in `env` added to ours; its exit code and output. */
  node(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

const has = (tool: string): boolean => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** Why a test that needs a second user cannot run here, or undefined. */
export function noSecondUser(): string | undefined {
  if (process.getuid?.() !== 0) return skipOutsideCi('needs root to create a second OS user (useradd)');
  if (!has('useradd')) return skipOutsideCi('useradd is not installed');
  return undefined;
}

let made: OsUser | undefined;

/** The second user (made once per test process); `groups`: extra groups it joins (created when missing). */
export function secondUser(groups: readonly string[] = []): OsUser {
  if (made !== undefined) return made;
  const name = `qdt${process.pid}`;
  for (const g of groups) {
    try {
      execFileSync('groupadd', ['-f', g], { stdio: 'ignore' });
    } catch {
      // Already there.
    }
  }
  execFileSync('useradd', ['-M', '-U', '-s', '/usr/sbin/nologin', ...(groups.length > 0 ? ['-G', groups.join(',')] : []), name], { stdio: 'ignore' });
  const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
  made = {
    name,
    uid,
    gid,
    remove() {
      made = undefined;
      execFileSync('userdel', [name], { stdio: 'ignore' });
      for (const g of groups) execFileSync('groupdel', [g], { stdio: 'ignore' });
    },
    node(args, env = {}) {
      // setpriv sets the supplementary groups too (spawn's uid/gid options leave root's in place).
      const groups = execFileSync('id', ['-G', name], { encoding: 'utf8' }).trim().split(' ').join(',');
      const child = spawn('setpriv', [`--reuid=${uid}`, `--regid=${gid}`, `--groups=${groups}`, '--', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd: '/tmp', env: { ...process.env, ...env } });
      return outputOf(child);
    },
  };
  return made;
}
