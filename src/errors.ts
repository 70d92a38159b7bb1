/**
 * The kinds of error a person can cause or fix, each a one-line message with an optional hint.
 * They know nothing of exit codes or front doors: the CLI maps a kind to an exit code
 * (src/cli/errors.ts), and MQTT and MCP will map the same kinds their own way. Anything else that
 * reaches a front door is a bug.
 */
export type ErrorKind = 'usage' | 'input' | 'runtime';

export class QuackdError extends Error {
  constructor(
    message: string,
    readonly kind: ErrorKind,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** Bad flags or arguments. */
export class UsageError extends QuackdError {
  override readonly name = 'UsageError';
  constructor(message: string, hint?: string) {
    super(message, 'usage', hint);
  }
}

/** Bad input files or values (a malformed .duck, an unknown robot). */
export class InputError extends QuackdError {
  override readonly name = 'InputError';
  constructor(message: string, hint?: string) {
    super(message, 'input', hint);
  }
}

/** The world failed us: hardware, network, provider, disk. */
export class RuntimeError extends QuackdError {
  override readonly name = 'RuntimeError';
  constructor(message: string, hint?: string) {
    super(message, 'runtime', hint);
  }
}
