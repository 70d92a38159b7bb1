/**
 * The embedded broker (aedes) for a robot with no broker of its own: MQTT 3.1.1, on loopback
 * only (mqtt.listen; src/mqtt/config.ts says why), retained messages in memory (the front door republishes them after a restart). A port
 * that is taken is said as such, so the service can go on without MQTT instead of failing.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { hostPort } from './settings.js';

export class BrokerPortTaken extends Error {
  override readonly name = 'BrokerPortTaken';
  constructor(
    readonly host: string,
    readonly port: number,
  ) {
    super(`port ${port} on ${host} is taken (another MQTT broker? set mqtt.url to use it, or mqtt.listen.port)`);
  }
}

export interface EmbeddedBroker {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startEmbeddedBroker(host: string, port: number): Promise<EmbeddedBroker> {
  // Imported here: a service on an external broker (mosquitto, HA's add-on) never pays its memory.
  const { Aedes } = await import('aedes');
  const aedes = await Aedes.createBroker();
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    // Commands are small packets: no Nagle delay on a stop.
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    aedes.handle(socket);
  });
  const closeAedes = () => new Promise<void>((resolve) => aedes.close(() => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    await closeAedes();
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new BrokerPortTaken(host, port);
    throw err;
  }
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  return {
    url: `mqtt://${hostPort(host, bound)}`,
    port: bound,
    async close() {
      await closeAedes();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A client that has not hung up yet must not hold the service's exit.
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
