/**
 * SIGTERM, SIGINT and SIGHUP for `quackd serve`: the first stops the service cleanly and the
 * process exits 0; cleanup that hangs past the deadline is logged and exits 1; a second signal
 * exits at once with 128 + its number. Runs once.
 */
import { constants } from 'node:os';
import { logger } from '../log.js';

export const STOP_DEADLINE_MS = 5000;

/** Resolves with the exit code once a signal came and the stop finished (or failed). */
export function stopOnSignals(stop: (why: string) => Promise<void>, deadlineMs = STOP_DEADLINE_MS): Promise<number> {
  return new Promise((resolve) => {
    let received: NodeJS.Signals | undefined;
    const handler = (s: NodeJS.Signals): void => {
      if (received !== undefined) {
        logger('service').warn({ signal: s }, 'a second signal: exiting now');
        process.exit(128 + (constants.signals[s] ?? 15));
      }
      received = s;
      const deadline = setTimeout(() => {
        logger('service').error({ deadlineMs }, 'cleanup did not finish in time; exiting');
        process.exit(1);
      }, deadlineMs);
      stop(s).then(
        () => {
          clearTimeout(deadline);
          for (const sig of SIGNALS) process.off(sig, handler);
          // Something left open (a handle a library forgot) must not keep a stopped service alive.
          setTimeout(() => process.exit(0), 1000).unref();
          resolve(0);
        },
        (err: unknown) => {
          clearTimeout(deadline);
          logger('service').error({ err }, 'quackd serve did not stop cleanly');
          resolve(1);
        },
      );
    };
    for (const sig of SIGNALS) process.on(sig, handler);
  });
}

const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
