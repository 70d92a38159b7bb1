/**
 * Runs the built CLI (`node dist/quackd.cjs`, package.json's bin: the launcher, which loads
 * dist/main.js for every verb but the socket clients) as a child process, the way a user does,
 * with its own QUACKD_HOME. `npm test` builds dist before the tests run.
 */
import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MAIN = fileURLToPath(new URL('../../dist/quackd.cjs', import.meta.url));
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function newestMtime(dir: string): number {
  return Math.max(0, ...readdirSync(dir, { withFileTypes: true }).map((d) => (d.isDirectory() ? newestMtime(join(dir, d.name)) : statSync(join(dir, d.name)).mtimeMs)));
}

let fresh: boolean | undefined;
/** A test of the built CLI must test today's code: a dist older than src fails, it does not pass on stale code. */
export function assertFreshBuild(): void {
  fresh ??= (() => {
    let built: number;
    try {
      built = statSync(MAIN).mtimeMs;
    } catch {
      return false;
    }
    return built >= newestMtime(SRC);
  })();
  if (!fresh) throw new Error(`${MAIN} is missing or older than src/: run 'npm run build' (npm test does)`);
}

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly input?: string;
  readonly timeoutMs?: number;
  /** The working directory (default: the test process's). */
  readonly cwd?: string;
  /** Called with the child once it has started (to send signals). */
  readonly onSpawn?: (child: ChildProcess) => void;
}

/**
 * The caller's environment without any QUACKD_* variable: a developer's QUACKD_MEMORY_DIR or
 * QUACKD_PROVIDER must not steer a test's child, so a test sets every variable it depends on.
 */
export function childEnv(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('QUACKD_')));
  return { ...inherited, ...env };
}

/** A child's exit code and everything it wrote, once it has closed. */
export function outputOf(child: ChildProcessByStdio<null, Readable, Readable>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A net for a command that hangs, not a deadline for a slow one: opening the MuJoCo twin (its
 * model compiled, five policy sessions) took 5.5 s at load 8 and over 20 s in CI beside four busy
 * processes, where a 20 s net cut a run that was on its way to the right answer.
 */
export const HANG_MS = 90_000;

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  assertFreshBuild();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      env: childEnv({ NO_COLOR: '1', QUACKD_LOG_JSON: '1', ...options.env }),
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`quackd ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? HANG_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    options.onSpawn?.(child);
    child.stdin.end(options.input ?? '');
  });
}
