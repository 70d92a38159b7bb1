/**
 * The embedded broker (aedes) for a robot with no broker of its own: MQTT 3.1.1, on loopback
 * only (mqtt.listen; src/mqtt/config.ts says why), retained messages in memory (the front door republishes them after a restart). A port
 * that is taken is said as such, so the service can go on without MQTT instead of failing.
 * Being the broker, it knows which client sent each command (`sender`): MQTT itself never tells
 * a subscriber who published, so this is how a run from MQTT names the client that asked.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { Duplex, pipeline, Transform } from 'node:stream';
import { logger } from '../log.js';
import { MAX_PACKET_BYTES, packetSizeGuard } from './packet-limit.js';
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
  /** The client id that published `payload` on `topic` (a topic `watched` accepts), asked once when it arrives. */
  sender(topic: string, payload: Buffer): string | undefined;
  close(): Promise<void>;
}

/** Commands noted and not yet asked about: a few at a time, unless nobody asks (then the oldest go). */
const SENDERS_KEPT = 64;

export async function startEmbeddedBroker(host: string, port: number, watched: (topic: string) => boolean = () => false): Promise<EmbeddedBroker> {
  // Imported here: a service on an external broker (mosquitto, HA's add-on) never pays its memory.
  const { Aedes } = await import('aedes');
  const aedes = await Aedes.createBroker();
  const senders = new Map<string, string>();
  const key = (topic: string, payload: Buffer | string): string => `${topic}\n${Buffer.from(payload).toString('base64')}`;
  const authorize = aedes.authorizePublish.bind(aedes);
  // Before the message goes anywhere: the front door's own client hears it later, over its socket.
  aedes.authorizePublish = (client, packet, callback) => {
    if (client !== null && watched(packet.topic)) {
      senders.set(key(packet.topic, packet.payload), client.id);
      const [oldest] = senders.keys();
      if (senders.size > SENDERS_KEPT && oldest !== undefined) senders.delete(oldest);
    }
    authorize(client, packet, callback);
  };
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    // Commands are small packets: no Nagle delay on a stop.
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // Each packet's declared size is read before aedes buffers it (packet-limit.ts).
    const guard = packetSizeGuard();
    const inbound = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        const size = guard(chunk);
        if (size === undefined) return done(null, chunk);
        logger('mqtt').warn({ from: `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`, bytes: size }, `refused an MQTT packet over the ${MAX_PACKET_BYTES / 1024} KB packet limit; connection closed`);
        socket.destroy();
        done();
      },
    });
    pipeline(socket, inbound, () => undefined);
    aedes.handle(Duplex.from({ readable: inbound, writable: socket }));
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
    sender(topic, payload) {
      const k = key(topic, payload);
      const id = senders.get(k);
      senders.delete(k);
      return id;
    },
    async close() {
      await closeAedes();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A client that has not hung up yet must not hold the service's exit.
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
