/**
 * Errors a user can cause or fix, each with its exit code and a one-line message (plus an
 * optional hint). Anything else that reaches main() is a bug and prints a stack trace.
 */
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

export class QuackdError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** Bad flags or arguments. */
export class UsageError extends QuackdError {
  override readonly name = 'UsageError';
  constructor(message: string, hint?: string) {
    super(message, EXIT.usage, hint);
  }
}

/** Bad input files or values (a malformed .duck, an unknown robot). */
export class InputError extends QuackdError {
  override readonly name = 'InputError';
  constructor(message: string, hint?: string) {
    super(message, EXIT.usage, hint);
  }
}

/** The world failed us: hardware, network, provider, disk. */
export class RuntimeError extends QuackdError {
  override readonly name = 'RuntimeError';
  constructor(message: string, hint?: string) {
    super(message, EXIT.runtime, hint);
  }
}
