/**
 * A stand-in for `quackd serve` in test/service/notify.test.ts: the notifier on its own, READY
 * at start, alive until SIGUSR2 (then its store is stuck), STOPPING on SIGTERM, then exit 0 as the service does.
 */
import { SystemdNotify } from '../../src/service/notify.js';

let trouble: string | undefined;
const notify = new SystemdNotify({ env: process.env, trouble: () => trouble });
notify.start();
notify.ready('serving 1 robot\nall well');
const alive = setInterval(() => undefined, 1000);
process.on('SIGUSR2', () => (trouble = 'store: stuck'));
process.once('SIGTERM', () => {
  void notify.stopping('stopping: SIGTERM').then(() => {
    clearInterval(alive);
    process.exitCode = 0;
  });
});
