/**
 * SIGTERM, SIGINT and SIGHUP for `quackd serve`: the first stops the service cleanly and the
 * process exits 0; cleanup that hangs past the deadline is logged and exits 1; a second signal
 * exits at once with 128 + its number. A restart on request (src/service/restart.ts) stops the
 * same way and exits RESTART_EXIT_CODE. Runs once.
 */
import { constants } from 'node:os';
import { logger } from '../log.js';
import { RESTART_EXIT_CODE, type RestartRequest } from './restart.js';

export const STOP_DEADLINE_MS = 5000;

/** Resolves with the exit code once a signal (or a restart request) came and the stop finished (or failed). */
export function stopOnSignals(stop: (why: string) => Promise<void>, deadlineMs = STOP_DEADLINE_MS, restart?: RestartRequest): Promise<number> {
  return new Promise((resolve) => {
    let begun = false;
    const begin = (why: string, code: number): void => {
      begun = true;
      const deadline = setTimeout(() => {
        logger('service').error({ deadlineMs }, 'cleanup did not finish in time; exiting');
        process.exit(1);
      }, deadlineMs);
      stop(why).then(
        () => {
          clearTimeout(deadline);
          for (const sig of SIGNALS) process.off(sig, handler);
          // Something left open (a handle a library forgot) must not keep a stopped service alive.
          setTimeout(() => process.exit(code), 1000).unref();
          resolve(code);
        },
        (err: unknown) => {
          clearTimeout(deadline);
          logger('service').error({ err }, 'quackd serve did not stop cleanly');
          resolve(1);
        },
      );
    };
    const handler = (s: NodeJS.Signals): void => {
      if (begun) {
        logger('service').warn({ signal: s }, 'a second signal: exiting now');
        process.exit(128 + (constants.signals[s] ?? 15));
      }
      begin(s, 0);
    };
    for (const sig of SIGNALS) process.on(sig, handler);
    restart?.onRequest((why) => {
      if (begun) return;
      logger('service').info({ why, exit: RESTART_EXIT_CODE }, 'quackd serve restarting: it stops, then systemd starts it again');
      begin(why, RESTART_EXIT_CODE);
    });
  });
}

const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
