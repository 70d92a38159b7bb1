/**
 * The embedded broker (aedes) for a robot with no broker of its own: MQTT 3.1.1, on loopback
 * only (mqtt.listen; src/mqtt/config.ts says why), retained messages in memory (the front door republishes them after a restart). A port
 * that is taken is said as such, so the service can go on without MQTT instead of failing.
 * Being the broker, it knows which client sent each command: MQTT itself never tells a
 * subscriber who published, so commands are handed to the front door from here, with their
 * sender, and a run from MQTT names the login and client that asked. Anonymous clients are refused; who may publish where is broker-acl.ts's.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { Duplex, pipeline, Transform } from 'node:stream';
import { timingSafeEqual } from 'node:crypto';
import { logger } from '../log.js';
import { clientWords } from '../runtime/holder.js';
import { mayHear, publishRefusal, type AclContext, type BrokerLogin } from './broker-acl.js';
import { COMMAND_RATE, CommandPacer, type RateLimitSettings } from './rate-limit.js';
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

/** Who published a command: its client id and the login it connected with. */
export interface Sender {
  readonly clientId: string;
  readonly username: string;
}

export interface EmbeddedBroker {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export interface BrokerAccess {
  /** Every login (the service's own included) with its password and rights. */
  readonly logins: ReadonlyMap<string, BrokerLogin>;
  readonly acl: AclContext;
}

/** A CONNACK refusal aedes passes on: 4 is "bad user name or password". */
const badLogin = (): Error & { returnCode: number } => Object.assign(new Error('bad user name or password'), { returnCode: 4 });

function samePassword(given: Buffer | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const want = Buffer.from(expected);
  return given.length === want.length && timingSafeEqual(given, want);
}

/**
 * `commands`: hears each message another login publishes on a topic `watched` accepts, with who
 * sent it, in the order the broker takes them (the front door's commands, straight from the
 * broker: no round trip through a client, and no guessing who sent what).
 */
export async function startEmbeddedBroker(host: string, port: number, access: BrokerAccess, watched: (topic: string) => boolean, commands: (topic: string, payload: Buffer, sender: Sender) => void, rate: RateLimitSettings = COMMAND_RATE): Promise<EmbeddedBroker> {
  // Imported here: a service on an external broker (mosquitto, HA's add-on) never pays its memory.
  const { Aedes } = await import('aedes');
  const aedes = await Aedes.createBroker();
  const log = logger('mqtt');
  const pacer = new CommandPacer(rate);
  /** Each connected client's login, as it authenticated. */
  const users = new WeakMap<object, string>();
  // No anonymous client: every login is one of the data directory's (credentials.ts).
  aedes.authenticate = (client, username, password, callback) => {
    const login = username !== undefined ? access.logins.get(username) : undefined;
    if (username === undefined || login === undefined || !samePassword(password, login.password)) {
      log.warn({ client: clientWords(client.id), user: username === undefined ? '(anonymous)' : clientWords(username) }, 'refused an MQTT login: anonymous or unknown user, or a wrong password');
      return callback(badLogin(), false);
    }
    users.set(client, username);
    callback(null, true);
  };
  // Before the message goes anywhere: the front door's own client hears it later, over its socket.
  aedes.authorizePublish = (client, packet, callback) => {
    if (client === null) return callback(null);
    const username = users.get(client) ?? '';
    const why = publishRefusal(access.acl, username, access.logins.get(username), packet.topic);
    if (why !== undefined) {
      log.warn({ client: clientWords(client.id), user: clientWords(username), topic: clientWords(packet.topic, 200) }, `refused an MQTT publish: ${why}; connection closed`);
      return callback(new Error(why));
    }
    // A client over the command rate is read no further for a moment: its flood waits in its own
    // socket, not in the broker's queues ahead of someone else's stop (the front door refuses it).
    // aedes reads a client's next bytes only once every packet already read is handled, so holding
    // this answer holds the client. (aedes's own pause() loses count of a batch read meanwhile and
    // never reads that client again: test/mqtt/set-fuzz.test.ts hung on it.)
    const hold = watched(packet.topic) ? pacer.holdMs(client.id, Date.now()) : 0;
    if (hold > 0) {
      setTimeout(() => callback(null), hold).unref();
      return;
    }
    callback(null);
  };
  // Fleet memory reaches only the logins that share it, retained copies included (aedes asks
  // here for every delivery); a subscription to `#` still hears everything else.
  aedes.authorizeForward = (client, packet) => {
    const username = users.get(client) ?? '';
    return mayHear(access.acl, username, access.logins.get(username), packet.topic) ? packet : null;
  };
  aedes.on('publish', (packet, client) => {
    const username = client !== null ? users.get(client) : undefined;
    if (client === null || username === undefined || username === access.acl.serviceUser || !watched(packet.topic)) return;
    commands(packet.topic, Buffer.from(packet.payload), { clientId: client.id, username });
  });
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
        log.warn({ from: `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`, bytes: size }, `refused an MQTT packet over the ${MAX_PACKET_BYTES / 1024} KB packet limit; connection closed`);
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
    async close() {
      await closeAedes();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A client that has not hung up yet must not hold the service's exit.
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
