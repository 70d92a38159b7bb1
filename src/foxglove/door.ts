/**
 * `quackd serve --foxglove`: the live Foxglove server as one of the service's front doors. It
 * listens to the runtime's bus (every control loop's ticks, every line of the service's runs) and
 * sends what a recording would hold; it starts after the control socket and stops before the
 * runtime, like the other doors. A listener never throws into the bus: a message the server
 * cannot send is the client's loss.
 */
import { logger } from '../log.js';
import { tickMessages } from '../recording/joint-messages.js';
import { transcriptMessages } from '../recording/transcript-messages.js';
import type { FrontDoor } from '../service/front-door.js';
import type { LiveServer } from './live-server.js';

export interface FoxgloveDoorOptions {
  readonly host: string;
  readonly port: number;
  readonly token?: string;
}

export function foxgloveDoor(options: FoxgloveDoorOptions): FrontDoor {
  let server: LiveServer | undefined;
  let unlisten: (() => void)[] = [];
  return {
    name: 'foxglove',
    async start(api) {
      // Loaded here, not with the service: its WebSocket server and message schemas are half a MB
      // of heap in every service, which a robot without --foxglove never uses.
      const { LiveServer } = await import('./live-server.js');
      const live = new LiveServer({ ...options, robots: api.robots().map((r) => r.robot) });
      await live.start();
      server = live;
      unlisten = [
        api.events.on('control:ticks', (batch) => {
          for (const tick of batch.ticks) for (const m of tickMessages(batch.joints, tick, batch.dropped, live.frames(batch.robot))) live.publish(batch.robot, m);
        }),
        api.events.on('run:event', (e) => {
          for (const m of transcriptMessages(e.event, Date.now(), live.frames(e.robot))) live.publish(e.robot, m);
        }),
      ];
      logger('foxglove').info({ url: live.url, token: options.token !== undefined }, `Foxglove live at ${live.url}${options.token !== undefined ? ' (token required)' : ''}`);
    },
    async stop() {
      for (const off of unlisten.splice(0)) off();
      const live = server;
      server = undefined;
      if (live === undefined) return;
      if (live.dropped > 0) logger('foxglove').warn({ dropped: live.dropped }, 'slow Foxglove clients lost messages');
      await live.stop();
    },
    status() {
      return server === undefined ? [] : [{ label: 'foxglove', value: `${server.url} · ${server.clients} client${server.clients === 1 ? '' : 's'} · ${server.dropped} dropped`, ok: true }];
    },
  };
}
