/**
 * Where quackd keeps its files: the data directory (`~/.quackd`, or QUACKD_HOME) and what lives
 * under it. Created 0700 on first use: transcripts and memory are the robot's private life.
 */
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export function dataDir(env: NodeJS.ProcessEnv): string {
  const home = env['QUACKD_HOME'];
  return home !== undefined && home !== '' ? resolve(home) : join(homedir(), '.quackd');
}

export function transcriptsDir(env: NodeJS.ProcessEnv): string {
  return join(dataDir(env), 'transcripts');
}

/** Each run's recording (`<run id>.mcap`), beside the transcripts. */
export function recordingsDir(env: NodeJS.ProcessEnv): string {
  return join(dataDir(env), 'recordings');
}

/** The user's own ducks, listed by `quackd ducks` beside the starters. */
export function userDucksDir(env: NodeJS.ProcessEnv): string {
  return join(dataDir(env), 'ducks');
}

/** Robot memory: `--memory-dir`, then QUACKD_MEMORY_DIR, then `<data dir>/memory`. */
export function memoryDir(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag !== undefined && flag !== '') return resolve(flag);
  const fromEnv = env['QUACKD_MEMORY_DIR'];
  return fromEnv !== undefined && fromEnv !== '' ? resolve(fromEnv) : join(dataDir(env), 'memory');
}

/**
 * Why `dir` cannot be created or written, in a person's words, or undefined when it can: the
 * nearest existing ancestor is on a read-only file system (EROFS even for root), or not
 * writable by this user. mkdir's own code (ENOENT on a read-only mount) says neither.
 */
export function unwritableReason(dir: string): string | undefined {
  let at = resolve(dir);
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  try {
    accessSync(at, constants.W_OK);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EROFS') return `${at} is on a read-only file system`;
    if (code === 'EACCES' || code === 'EPERM') return `${at} is not writable by this user`;
    return undefined;
  }
}

export function ensurePrivateDir(dir: string): string {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    const why = unwritableReason(dir);
    if (why !== undefined) throw Object.assign(new Error(why), { code: (err as NodeJS.ErrnoException).code });
    throw err;
  }
  return dir;
}
