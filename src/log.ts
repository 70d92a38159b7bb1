/**
 * Structured logs with pino: JSON lines on stderr, human-readable when stderr is a TTY. The CLI
 * logs at `warn` unless QUACKD_LOG_LEVEL or --debug says otherwise, so logs never drown a run's
 * own output. Every line passes through redact(): no API key reaches a log.
 *
 * A command runs inside withLogs(root): every logger() it (and what it calls) asks for writes to
 * that invocation's stderr at its level, so two invocations in one process (a test, later a
 * service answering the CLI) never share a log stream or a level. Outside any, the process's.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import { pino, type DestinationStream, type Logger } from 'pino';
import { redact } from './secrets.js';

let processRoot: Logger | undefined;
const scoped = new AsyncLocalStorage<Logger>();

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** What pino hands a formatter: the record's fields, after serializers (an error is an object). */
type Record_ = Readonly<Record<string, unknown>>;

const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'module', 'msg']);

function fact(value: unknown): string | undefined {
  if (typeof value === 'string') return /\s/.test(value) || value === '' ? JSON.stringify(value) : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/**
 * The terminal's one line for a record: `module: message` and its facts as `key=value`, never a
 * JSON tail. An error shows its message (its stack with --debug is in QUACKD_LOG_JSON=1's lines);
 * other objects are left to the JSON logs.
 */
export function terminalLine(log: Record_): string {
  const module = typeof log['module'] === 'string' ? `${log['module']}: ` : '';
  const facts: string[] = [];
  for (const [key, value] of Object.entries(log)) {
    if (HIDDEN.has(key)) continue;
    if (key === 'err' && typeof value === 'object' && value !== null) {
      const message = (value as { message?: unknown }).message;
      if (typeof message === 'string') facts.push(`err=${JSON.stringify(message.split('\n')[0] ?? '')}`);
      continue;
    }
    const shown = fact(value);
    if (shown !== undefined) facts.push(`${key}=${shown}`);
  }
  return `${module}${String(log['msg'] ?? '')}${facts.length > 0 ? ` ${facts.join(' ')}` : ''}`;
}

/** pino-pretty's options for a terminal (exported for tests, which give it a stream). */
export function prettyOptions(destination: number | NodeJS.WritableStream, env: NodeJS.ProcessEnv = {}): Record<string, unknown> {
  return {
    destination,
    sync: true,
    colorize: !env['NO_COLOR'],
    // hideObject: the facts are in the message line already (and singleLine with hideObject
    // would drop pino-pretty's end of line).
    hideObject: true,
    messageFormat: terminalLine,
    ignore: 'pid,hostname,module',
    translateTime: 'HH:MM:ss',
  };
}

export function createLogger(level: string, destination: DestinationStream): Logger {
  return pino({ level, base: { pid: process.pid }, hooks: { streamWrite: redact } }, destination);
}

/**
 * The root logger of one invocation: QUACKD_LOG_LEVEL and QUACKD_LOG_JSON from `env`, records
 * to `stderr` (the process's own is written by file descriptor, synchronously).
 */
export function createLogRoot(env: NodeJS.ProcessEnv, stderr: Writable & { readonly isTTY?: boolean }): Logger {
  const asked = env['QUACKD_LOG_LEVEL']?.toLowerCase();
  const level = asked !== undefined && LEVELS.includes(asked) ? asked : 'warn';
  if (asked !== undefined && asked !== level) stderr.write(`quackd: QUACKD_LOG_LEVEL "${asked}" is not one of ${LEVELS.join(', ')}; using warn\n`);
  const fd = stderr === process.stderr ? 2 : undefined;
  const pretty = stderr.isTTY === true && env['QUACKD_LOG_JSON'] === undefined;
  if (pretty) {
    // Synchronous and one line per record: on a terminal a log line sits between a run's step
    // lines, in the order things happened (a transport's worker thread would print it later).
    return createLogger(level, prettyStream(fd ?? stderr, env));
  }
  return createLogger(level, fd !== undefined ? pino.destination({ fd, sync: true }) : stderr);
}

export function prettyStream(destination: number | NodeJS.WritableStream, env: NodeJS.ProcessEnv = {}): DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as (o: Record<string, unknown>) => DestinationStream;
  return pretty(prettyOptions(destination, env));
}

/** Runs `work` with `root` as the root of every logger() asked for inside it. */
export function withLogs<T>(root: Logger, work: () => Promise<T>): Promise<T> {
  return scoped.run(root, work);
}

/** A child logger for one module, e.g. `logger('bridge')`: ask for it when logging, not at import. */
export function logger(module: string): Logger {
  const root = scoped.getStore() ?? (processRoot ??= createLogRoot(process.env, process.stderr));
  return root.child({ module });
}
