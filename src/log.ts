/**
 * Structured logs with pino: JSON lines on stderr, human-readable when stderr is a TTY. The CLI
 * logs at `warn` unless QUACKD_LOG_LEVEL or --debug says otherwise, so logs never drown a run's
 * own output. Every line passes through redact(): no API key reaches a log.
 */
import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger } from 'pino';
import { redact } from './secrets.js';

let root: Logger | undefined;

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function createRoot(): Logger {
  const asked = process.env['QUACKD_LOG_LEVEL']?.toLowerCase();
  const level = asked !== undefined && LEVELS.includes(asked) ? asked : 'warn';
  if (asked !== undefined && asked !== level) process.stderr.write(`quackd: QUACKD_LOG_LEVEL "${asked}" is not one of ${LEVELS.join(', ')}; using warn\n`);
  const pretty = process.stderr.isTTY === true && process.env['QUACKD_LOG_JSON'] === undefined;
  const options = { level, base: { pid: process.pid }, hooks: { streamWrite: redact } };
  if (pretty) {
    // Synchronous and one line per record: on a terminal a log line sits between a run's step
    // lines, in the order things happened (a transport's worker thread would print it later).
    const pretty = createRequire(import.meta.url)('pino-pretty') as (o: Record<string, unknown>) => DestinationStream;
    return pino(options, pretty({ destination: 2, sync: true, colorize: !process.env['NO_COLOR'], singleLine: true, errorLikeObjectKeys: [], ignore: 'pid,hostname', translateTime: 'HH:MM:ss' }));
  }
  return pino(options, pino.destination({ fd: 2, sync: true }));
}

/** A child logger for one module, e.g. `logger('bridge')`. */
export function logger(module: string): Logger {
  root ??= createRoot();
  return root.child({ module });
}
