/**
 * Runs a `quackd` command in this process, as the bin does, against captured output: the same
 * dispatcher (src/cli/quackd.ts), flags, errors and exit codes, without starting a Node. The
 * environment is the test's own (no QUACKD_* of the developer's shell leaks in), stdin is the
 * given text, and a terminal can be pretended with `columns`. Tests that need a real process
 * (signals, a closed pipe, the built bin itself) use runCli() in cli.ts.
 */
import { PassThrough, Readable } from 'node:stream';
import type { Invocation } from '../../src/cli/invocation.js';
import { createOutput } from '../../src/cli/output.js';
import { quackd as dispatch } from '../../src/cli/quackd.js';
import { HANG_MS, childEnv, type CliResult } from './cli.js';

export interface InProcessOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** What the command reads on stdin (default: nothing, and not a terminal). */
  readonly input?: string;
  /** Pretend stdout is a terminal this wide (colour stays off: NO_COLOR). */
  readonly columns?: number;
  readonly timeoutMs?: number;
}

export interface Captured {
  readonly invocation: Invocation;
  stdout(): string;
  stderr(): string;
}

/** An invocation whose output is captured: for a test that calls one command's run() itself. */
export function captured(options: Omit<InProcessOptions, 'timeoutMs'> = {}): Captured {
  const out = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
  if (options.columns !== undefined) {
    out.isTTY = true;
    out.columns = options.columns;
  }
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  err.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const env = childEnv({ NO_COLOR: '1', QUACKD_LOG_JSON: '1', ...options.env });
  return {
    invocation: { io: createOutput(out, err, env), env, stdin: Readable.from(options.input !== undefined ? [options.input] : []) },
    stdout: () => stdout,
    stderr: () => stderr,
  };
}

/** `quackd ARGS`, in-process; resolves with its exit code and what it printed. */
export async function quackd(args: readonly string[], options: InProcessOptions = {}): Promise<CliResult> {
  const c = captured(options);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`quackd ${args.join(' ')} timed out\nstdout: ${c.stdout()}\nstderr: ${c.stderr()}`)), options.timeoutMs ?? HANG_MS);
  });
  try {
    const code = await Promise.race([dispatch(args, c.invocation), timeout]);
    // PassThrough hands its data on in a later tick: let the last lines arrive.
    await new Promise((resolve) => setImmediate(resolve));
    return { code, signal: null, stdout: c.stdout(), stderr: c.stderr() };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `wait` (a test's cue for a fault: goals reaching the servos, a second verb begun), unless the run
 * `run` ends first: then what the run printed is the error, not a timeout 30 s later that says
 * nothing of why (a walk that fell before its fault was raised). The race handles both: a wait
 * left behind runs out on its own.
 */
export async function beforeRunEnds<T>(run: Promise<CliResult>, what: string, wait: Promise<T>): Promise<T> {
  const ended = run.then((r) => Promise.reject(new Error(`the run ended (exit ${r.code}) before ${what}:\n${r.stdout}${r.stderr}`)));
  return Promise.race([wait, ended]);
}
