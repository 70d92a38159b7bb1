/**
 * The journal's lines for a robot's link to its firmware: one `link lost` when it goes (a cable
 * out, the firmware silent), one `link back` when a body talks to the firmware again (the port
 * reopened, or the robot opened afresh; a daemon that answers again), so `journalctl -u quackd`
 * says when a robot was away.
 * Read from the bus's body reports, which say the link only when it changes.
 */
import type { ModuleLogger } from '../log.js';
import type { EventBus } from '../runtime/events.js';

/**
 * Logs each robot's link changes on `log`; returns the function that stops. `linkBack`: how a
 * robot's open body gets its link back, in words (BodyEntry.linkBack), when its kind says.
 */
export function journalLinks(events: EventBus, log: ModuleLogger, linkBack: (robot: string) => string | undefined = () => undefined): () => void {
  const links = new Map<string, 'ok' | 'lost'>();
  return events.on('body:report', ({ robot, link, why }) => {
    if (link === undefined) return;
    const was = links.get(robot);
    links.set(robot, link);
    // A body's first report is its opening, said by `body open`.
    // A daemon's robot (reach-watch.ts) says why; a serial one's body, open as it reports, says how it comes back.
    if (link === 'lost' && was !== 'lost') log.info(why !== undefined ? { robot, err: why } : { robot }, `link lost; ${why !== undefined ? 'quackd asks again every few seconds' : (linkBack(robot) ?? 'quackd opens it again once the port is back')}`);
    else if (link === 'ok' && was === 'lost') log.info({ robot }, 'link back');
  });
}
