/**
 * Where quackd keeps its files: the data directory (`~/.quackd`, or QUACKD_HOME) and what lives
 * under it. Created 0700 on first use: transcripts and memory are the robot's private life.
 */
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = env['QUACKD_HOME'];
  return home !== undefined && home !== '' ? resolve(home) : join(homedir(), '.quackd');
}

export function transcriptsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(dataDir(env), 'transcripts');
}

/** The user's own ducks, listed by `quackd ducks` beside the starters. */
export function userDucksDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(dataDir(env), 'ducks');
}

/** Robot memory: `--memory-dir`, then QUACKD_MEMORY_DIR, then `<data dir>/memory`. */
export function memoryDir(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (flag !== undefined && flag !== '') return resolve(flag);
  const fromEnv = env['QUACKD_MEMORY_DIR'];
  return fromEnv !== undefined && fromEnv !== '' ? resolve(fromEnv) : join(dataDir(env), 'memory');
}

export function ensurePrivateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
