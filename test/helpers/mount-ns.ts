/**
 * The built CLI in a mount namespace of its own, after a shell `setup` that mounts (a read-only bind
 * mount, a file bound over itself): what a read-only or busy disk does, without touching the host's
 * mounts. Needs root and `unshare -m`; CI runs as root, so there it never skips.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { MAIN, childEnv, type CliResult } from './cli.js';

export const canMount = (() => {
  if (process.env['CI'] === 'true') return true;
  try {
    execFileSync('unshare', ['-m', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** `setup` is run by sh with `paths` as $1…; then `quackd ARGS` with `env`. */
export function quackdMounted(setup: string, paths: readonly string[], args: readonly string[], env: NodeJS.ProcessEnv): CliResult {
  const script = `${setup} && shift ${paths.length} && exec "$@"`;
  const r = spawnSync('unshare', ['-m', 'sh', '-c', script, 'sh', ...paths, process.execPath, MAIN, ...args], { env: childEnv({ NO_COLOR: '1', ...env }), encoding: 'utf8' });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** sh that makes $1 a read-only bind mount of itself. */
export const READ_ONLY = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1"';
