/**
 * Runs the built CLI on a real pseudo-terminal of a given width, as a person at an SSH session
 * sees it: util-linux's `script` gives it a pty (stdout and stderr are that terminal), `stty`
 * sets the width, and what the terminal received comes back with its colour codes and the pty's
 * carriage returns taken out.
 */
import { spawn } from 'node:child_process';
import { stripColor } from '../../src/cli/fit.js';
import { MAIN, assertFreshBuild, childEnv } from './cli.js';

/** A word for sh, quoted. */
const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export interface TerminalResult {
  readonly code: number | null;
  /** Everything the terminal showed, one screen line an element (a line the CLI ended, not a wrap of the terminal's). */
  readonly lines: string[];
}

export interface OnTerminal {
  /** What the terminal has shown so far, colour and carriage returns taken out. */
  text(): string;
  readonly exited: Promise<TerminalResult>;
  /** What the person types at it (a question's answer). */
  type(text: string): void;
  /** Nothing more will be typed (as a terminal whose input is /dev/null). */
  endInput(): void;
  /** Ends it now (the whole `script` session) when it is still up. */
  kill(): void;
}

/**
 * `quackd ARGS` on a terminal `columns` wide, left running: its stdin stays open (a question it
 * asks waits for an answer), so a test can act while it runs. `env` on top of the test's (colour
 * on, as a terminal has it).
 */
export function startOnTerminal(args: readonly string[], columns: number, env: NodeJS.ProcessEnv = {}, timeoutMs = 30_000): OnTerminal {
  assertFreshBuild();
  const command = `stty cols ${columns} rows 50 && exec ${[process.execPath, MAIN, ...args].map(quote).join(' ')}`;
  const child = spawn('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
    env: childEnv({ TERM: 'xterm-256color', NO_COLOR: undefined, QUACKD_LOG_JSON: '1', ...env }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let text = '';
  const clean = (): string => stripColor(text).replace(/\r/g, '');
  child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (text += d));
  const exited = new Promise<TerminalResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`quackd ${args.join(' ')} on a terminal timed out:\n${text}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, lines: clean().replace(/\n$/, '').split('\n') });
    });
  });
  return { text: clean, exited, type: (typed) => void child.stdin.write(typed), endInput: () => child.stdin.end(), kill: () => void (child.exitCode === null && child.kill('SIGKILL')) };
}

/** `quackd ARGS` on a terminal `columns` wide, to its end; `typed`: what the person types at it (a question's answer), else nothing. */
export function onTerminal(args: readonly string[], columns: number, env: NodeJS.ProcessEnv = {}, timeoutMs = 30_000, typed?: string): Promise<TerminalResult> {
  const run = startOnTerminal(args, columns, env, timeoutMs);
  // Left open after typing: script ends the session when its input ends, maybe before the question is read.
  if (typed !== undefined) run.type(typed);
  else run.endInput();
  return run.exited;
}
