/**
 * sd_notify as the last of `quackd serve`'s doors: READY=1 once every other door is up, the
 * watchdog fed while the service itself is alive, STOPPING=1 as soon as the service begins to stop
 * (before the runs stop, so systemd knows the wait is a shutdown).
 *
 * Alive is the service's own: its event loop turns (the ping is a timer on it), its health answers
 * (a stuck store does not), and none of its own health lines fails (the store and its writer
 * thread, the control socket). A robot's lines (its link, loop, battery) never withhold a ping: an
 * unplugged duck is that robot's `warn`, and a restart would take every other robot and the
 * broker down with it while quackd reopens the port by itself once it is back.
 */
import { plural } from '../text/plural.js';
import type { HealthLine, ServiceApi } from './api.js';
import type { FrontDoor } from './front-door.js';
import { SystemdNotify, type NotifyOptions } from './notify.js';

/** Why `lines` say the service itself is not alive (its own lines that fail), or undefined. */
export function serviceTrouble(lines: readonly HealthLine[]): string | undefined {
  const failing = lines.filter((l) => l.robot === undefined && l.status === 'fail');
  return failing.length > 0 ? failing.map((l) => `${l.check}: ${l.detail}`).join('; ') : undefined;
}

/** Pings a health may take to answer before the service counts as stuck: a loaded machine is slow, a stuck store never answers. */
const PATIENCE_PINGS = 2;

export function notifyDoor(options: Omit<NotifyOptions, 'trouble'>): FrontDoor {
  let api: ServiceApi | undefined;
  let last: string | undefined;
  let waited: number | undefined;
  // The notifier asks synchronously; health is async. Each ping reads the last answer and asks
  // again, unless the last question is still open: one that stays open is the trouble.
  const trouble = (): string | undefined => {
    if (api === undefined) return undefined;
    if (waited !== undefined) {
      waited += 1;
      return waited >= PATIENCE_PINGS ? `its health has not answered for ${plural(waited, 'watchdog interval')}` : last;
    }
    waited = 0;
    api.health().then(
      (lines) => {
        last = serviceTrouble(lines);
        waited = undefined;
      },
      (err: unknown) => {
        last = `its health failed: ${err instanceof Error ? err.message : String(err)}`;
        waited = undefined;
      },
    );
    return last;
  };
  const notify = new SystemdNotify({ ...options, trouble });
  return {
    name: 'sd_notify',
    async start(service) {
      api = service;
      last = serviceTrouble(await service.health());
      notify.start();
      notify.ready(`serving ${plural(service.robots().length, 'robot')}`);
    },
    stopping: (why) => notify.stopping(`stopping: ${why}`),
    stop: () => Promise.resolve(notify.stop()),
  };
}
