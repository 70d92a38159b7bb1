/**
 * Structured logs with pino: JSON lines on stderr, human-readable when stderr is a TTY. The CLI
 * logs at `warn` unless QUACKD_LOG_LEVEL or --debug says otherwise, so logs never drown a run's
 * own output. Every line passes through redact(): no API key reaches a log, nor what taps the
 * lines (tapLogs: MQTT's bridge/logging).
 *
 * Under systemd (INVOCATION_ID or JOURNAL_STREAM set) the lines are the terminal's plain ones
 * without time or colour, since journald stamps each line itself, at `info` (the service's
 * summaries are info lines). When stderr is the journal's own stream, each line starts with its
 * syslog priority (`<3>`), so `journalctl -p warning -u quackd` finds the warnings.
 *
 * A command runs inside withLogs(root): every logger() it (and what it calls) asks for writes to
 * that invocation's stderr at its level, so two invocations in one process (a test, later a
 * service answering the CLI) never share a log stream or a level. Outside any, the process's.
 * A logger() is a facade that knows its level: a record below it costs a comparison, and pino
 * loads with the first record that passes (a CLI run that logs nothing never loads it).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { fstatSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import type * as PinoModule from 'pino';
import type { DestinationStream, LogFn, Logger } from 'pino';
import { redact } from './secrets.js';

/**
 * An invocation's root logger, made when its first record passes `level`: pino (40 ms of a
 * command's start-up) loads only then.
 */
export interface LogRoot {
  readonly level: string;
  make(): Logger;
}

let processRoot: LogRoot | undefined;
const scoped = new AsyncLocalStorage<LogRoot>();

type Pino = typeof PinoModule;
let pinoModule: Pino | undefined;
/** pino, loaded when a logger is first made: 40 ms of every command's start-up otherwise. */
const pinoLib = (): Pino['pino'] => (pinoModule ??= createRequire(import.meta.url)('pino') as Pino).pino;

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
/** pino's numbers for its level names. */
const LEVEL_VALUES: Readonly<Record<string, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Number.POSITIVE_INFINITY };

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

/** What tapLogs() hands a listener: each record as its JSON line, already redacted. */
export type LogTap = (line: string) => void;

/** Each root logger's taps; its children write through the root's hook, so they are tapped too. */
const taps = new WeakMap<Logger, Set<LogTap>>();

export function createLogger(level: string, destination: DestinationStream): Logger {
  const tapped = new Set<LogTap>();
  let inTap = false;
  const streamWrite = (line: string): string => {
    const safe = redact(line);
    // A tap that logs (or one whose sink does) must not feed itself.
    if (tapped.size > 0 && !inTap) {
      inTap = true;
      try {
        for (const tap of tapped) tap(safe);
      } catch {
        // A tap's failure is its own: the line still reaches the log.
      } finally {
        inTap = false;
      }
    }
    return safe;
  };
  const root = pinoLib()({ level, base: { pid: process.pid }, hooks: { streamWrite } }, destination);
  taps.set(root, tapped);
  return root;
}

/**
 * Hands `tap` every line the current root logger writes from now on (MQTT's bridge/logging): the
 * invocation's inside withLogs(), else the process's. Returns the function that stops it.
 */
export function tapLogs(tap: LogTap): () => void {
  const set = taps.get(currentRoot());
  set?.add(tap);
  return () => set?.delete(tap);
}

/**
 * The root logger of one invocation: QUACKD_LOG_LEVEL and QUACKD_LOG_JSON from `env`, records
 * to `stderr` (the process's own is written by file descriptor, synchronously).
 */
export function createLogRoot(env: NodeJS.ProcessEnv, stderr: Writable & { readonly isTTY?: boolean }): Logger {
  return lazyLogRoot(env, stderr).make();
}

/** createLogRoot()'s root with its level known now and pino left until the first record that passes it. */
export function lazyLogRoot(env: NodeJS.ProcessEnv, stderr: Writable & { readonly isTTY?: boolean }): LogRoot {
  const fd = stderr === process.stderr ? 2 : undefined;
  const journal = env['QUACKD_LOG_JSON'] === undefined && stderr.isTTY !== true ? journalKind(env, fd) : undefined;
  const fallback = journal !== undefined ? 'info' : 'warn';
  const asked = env['QUACKD_LOG_LEVEL']?.toLowerCase();
  const level = asked !== undefined && LEVELS.includes(asked) ? asked : fallback;
  let made: Logger | undefined;
  return {
    level,
    make: () => {
      if (made !== undefined) return made;
      if (asked !== undefined && asked !== level) stderr.write(`quackd: QUACKD_LOG_LEVEL "${asked}" is not one of ${LEVELS.join(', ')}; using ${fallback}\n`);
      made = rootLogger(level, env, stderr, fd, journal);
      return made;
    },
  };
}

function rootLogger(level: string, env: NodeJS.ProcessEnv, stderr: Writable & { readonly isTTY?: boolean }, fd: number | undefined, journal: 'journal' | 'plain' | undefined): Logger {
  if (journal !== undefined) return createLogger(level, journalStream(fd !== undefined ? pinoLib().destination({ fd, sync: true }) : stderr, journal === 'journal'));
  const pretty = stderr.isTTY === true && env['QUACKD_LOG_JSON'] === undefined;
  if (pretty) {
    // Synchronous and one line per record: on a terminal a log line sits between a run's step
    // lines, in the order things happened (a transport's worker thread would print it later).
    return createLogger(level, prettyStream(fd ?? stderr, env));
  }
  return createLogger(level, fd !== undefined ? pinoLib().destination({ fd, sync: true }) : stderr);
}

/**
 * How systemd runs us: `journal` when stderr is the journal's stream (JOURNAL_STREAM names its
 * device and inode: a redirected stderr is not), `plain` for another stderr of a systemd unit.
 * Only the process's own stderr (`fd`) counts: a terminal inherits these variables from a desktop
 * session's units, and an invocation's captured stream is none of systemd's business.
 */
export function journalKind(env: NodeJS.ProcessEnv, fd: number | undefined): 'journal' | 'plain' | undefined {
  if (fd === undefined) return undefined;
  const stream = env['JOURNAL_STREAM'];
  if (stream !== undefined && stream !== '') {
    try {
      const st = fstatSync(fd);
      if (stream === `${st.dev}:${st.ino}`) return 'journal';
    } catch {
      // A closed stderr: not the journal.
    }
  }
  return (stream !== undefined && stream !== '') || (env['INVOCATION_ID'] ?? '') !== '' ? 'plain' : undefined;
}

/** pino's levels as syslog priorities: trace and debug 7, info 6, warn 4, error 3, fatal 2. */
const syslogPriority = (level: number) => (level >= 60 ? 2 : level >= 50 ? 3 : level >= 40 ? 4 : level >= 30 ? 6 : 7);

/** One terminal line a record for journald, with its priority when `priorities` (see the header). */
export function journalStream(out: { write(line: string): unknown }, priorities: boolean): DestinationStream {
  return {
    write(json: string) {
      const record = JSON.parse(json) as Record_;
      const level = typeof record['level'] === 'number' ? record['level'] : 30;
      // journald makes an entry of every line: a record stays one.
      const line = terminalLine(record).replace(/\s*[\r\n]+\s*/g, ' ');
      out.write(`${priorities ? `<${syslogPriority(level)}>` : ''}${line}\n`);
    },
  };
}

export function prettyStream(destination: number | NodeJS.WritableStream, env: NodeJS.ProcessEnv = {}): DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as (o: Record<string, unknown>) => DestinationStream;
  return pretty(prettyOptions(destination, env));
}

/** The root of every logger() asked for outside withLogs(): the process's own invocation's (set by the bin's dispatch). */
export function setProcessLogRoot(root: LogRoot): void {
  processRoot = root;
}

/** The invocation's log root inside withLogs(), else the process's. */
const currentLogRoot = (): LogRoot => scoped.getStore() ?? (processRoot ??= lazyLogRoot(process.env, process.stderr));

/** The invocation's root logger (made now if it was not yet): what tapLogs() taps. */
const currentRoot = (): Logger => currentLogRoot().make();

/** Runs `work` with `root` (a logger, or a LogRoot made when first needed) as the root of every logger() asked for inside it. */
export function withLogs<T>(root: Logger | LogRoot, work: () => Promise<T>): Promise<T> {
  return scoped.run('make' in root ? root : { level: root.level, make: () => root }, work);
}

/** What a module logs through: pino's methods, each a comparison when its level is below the root's. */
export interface ModuleLogger {
  /** The root's level: what a record must reach to be written. */
  readonly level: string;
  readonly trace: LogFn;
  readonly debug: LogFn;
  readonly info: LogFn;
  readonly warn: LogFn;
  readonly error: LogFn;
  readonly fatal: LogFn;
}

/** A logger for one module, e.g. `logger('bridge')`: ask for it when logging, not at import. */
export function logger(module: string): ModuleLogger {
  const root = currentLogRoot();
  const floor = LEVEL_VALUES[root.level] ?? 0;
  let child: Logger | undefined;
  const method = (name: Exclude<keyof ModuleLogger, 'level'>): LogFn => {
    if ((LEVEL_VALUES[name] ?? 0) < floor) return () => undefined;
    return (...args: Parameters<LogFn>) => {
      child ??= root.make().child({ module });
      child[name](...args);
    };
  };
  return { level: root.level, trace: method('trace'), debug: method('debug'), info: method('info'), warn: method('warn'), error: method('error'), fatal: method('fatal') };
}
