/**
 * sd_notify as the last of `quackd serve`'s doors: READY=1 once every other door is up, the
 * watchdog fed only while the service's own health has no `fail`, STOPPING=1 as soon as the
 * service begins to stop (before the runs stop, so systemd knows the wait is a shutdown).
 */
import { plural } from '../text/plural.js';
import type { HealthLine, ServiceApi } from './api.js';
import type { FrontDoor } from './front-door.js';
import { SystemdNotify, type NotifyOptions } from './notify.js';

/** Whether `lines` is a service systemd should leave running. */
export const noFail = (lines: readonly HealthLine[]): boolean => lines.every((l) => l.status !== 'fail');

export function notifyDoor(options: Omit<NotifyOptions, 'healthy'>): FrontDoor {
  let api: ServiceApi | undefined;
  let well = true;
  let asking = false;
  // The notifier asks synchronously; health is async. Each ping reads the last answer and asks
  // again: a health that has not answered by the next ping (a stuck store) is not healthy.
  const healthy = (): boolean => {
    if (api === undefined) return true;
    if (asking) return false;
    asking = true;
    api.health().then(
      (lines) => {
        well = noFail(lines);
        asking = false;
      },
      () => {
        well = false;
        asking = false;
      },
    );
    return well;
  };
  const notify = new SystemdNotify({ ...options, healthy });
  return {
    name: 'sd_notify',
    async start(service) {
      api = service;
      well = noFail(await service.health());
      notify.start();
      notify.ready(`serving ${plural(service.robots().length, 'robot')}`);
    },
    stopping: (why) => notify.stopping(`stopping: ${why}`),
    stop: () => Promise.resolve(notify.stop()),
  };
}
