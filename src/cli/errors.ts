/**
 * The CLI's side of errors: exit codes, and the mapping from an error's kind (src/errors.ts) to
 * one. Only src/commands and main.ts decide exit codes.
 */
import type { ErrorKind, QuackdError } from '../errors.js';

export { InputError, QuackdError, RuntimeError, UsageError } from '../errors.js';

export const EXIT = {
  ok: 0,
  /** The run ended in declared failure or budget exhaustion. */
  failure: 1,
  /** Usage or input error: bad flags, a malformed .duck, an unknown body. */
  usage: 2,
  /** Runtime or hardware error: the provider is unreachable, the serial port vanished. */
  runtime: 3,
  /** Interrupted by Ctrl-C (128 + SIGINT). */
  interrupted: 130,
} as const;

const BY_KIND: Readonly<Record<ErrorKind, number>> = { usage: EXIT.usage, input: EXIT.usage, runtime: EXIT.runtime };

/** The exit code a person's error ends the CLI with. */
export function exitCodeOf(err: QuackdError): number {
  return BY_KIND[err.kind];
}
