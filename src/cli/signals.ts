/**
 * Ctrl-C, SIGTERM and SIGHUP (an SSH session that drops) for a command that drives a body: the
 * first signal asks for a clean stop (the run tells the body to stop and closes its transcript);
 * a second one, or a stop that takes longer than the deadline, exits at once with 128 + the
 * signal's number.
 */
import { constants } from 'node:os';

export interface StopSignals {
  /** Aborted by the first SIGINT, SIGTERM or SIGHUP. */
  readonly signal: AbortSignal;
  /** The exit code the signal calls for (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP), once one came. */
  exitCode(): number | undefined;
  dispose(): void;
}

export function onStopSignals(deadlineMs = 5000): StopSignals {
  const abort = new AbortController();
  let received: NodeJS.Signals | undefined;
  let deadline: NodeJS.Timeout | undefined;
  const code = (s: NodeJS.Signals): number => 128 + (constants.signals[s] ?? 2);
  const handler = (s: NodeJS.Signals): void => {
    if (received !== undefined) process.exit(code(s));
    received = s;
    abort.abort(new Error(`stopped by ${s === 'SIGINT' ? 'Ctrl-C' : s}`));
    // A body that does not stop in time must not hold the process hostage.
    deadline = setTimeout(() => process.exit(code(s)), deadlineMs);
    deadline.unref();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  process.on('SIGHUP', handler);
  return {
    signal: abort.signal,
    exitCode: () => (received === undefined ? undefined : code(received)),
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
      process.off('SIGHUP', handler);
      if (deadline !== undefined) clearTimeout(deadline);
    },
  };
}
