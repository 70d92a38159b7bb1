/**
 * A link to a real broker that drops once, at a chosen moment: a TCP relay on a free loopback port
 * that reads the client's MQTT packets as they go and, once armed, at the first PUBLISH whose topic
 * the test chose, closes both sides without passing that packet or any after it (as a broker
 * restarting, or a Wi-Fi drop, mid-burst would). Until then, and after, everything is relayed
 * whole. Closed when the test ends.
 */
import { connect, createServer, type Socket } from 'node:net';
import { after } from 'node:test';

export interface CutLink {
  /** The relay's url, for the client's config. */
  readonly url: string;
  /** From now on, cut the link at the first PUBLISH whose topic `at` accepts. */
  arm(at: (topic: string) => boolean): void;
  /** The topic the link was cut at, once it was. */
  cut(): string | undefined;
  /** Connections the relay took so far. */
  connections(): number;
}

/** The length of a complete packet at the start of `buf` (fixed header included), or undefined while more must come. */
function packetLength(buf: Buffer): number | undefined {
  let length = 0;
  for (let i = 1, shift = 0; i <= 4; i++, shift += 7) {
    const byte = buf[i];
    if (byte === undefined) return undefined;
    length += (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return buf.length >= i + 1 + length ? i + 1 + length : undefined;
  }
  throw new Error('malformed MQTT remaining length');
}

export async function cutLink(brokerPort: number): Promise<CutLink> {
  let cutAt: ((topic: string) => boolean) | undefined;
  let cutTopic: string | undefined;
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    connections++;
    const broker = connect(brokerPort, '127.0.0.1');
    for (const s of [client, broker]) {
      s.setNoDelay(true);
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    const close = () => {
      client.destroy();
      broker.destroy();
    };
    client.on('close', close);
    broker.on('close', close);
    broker.pipe(client);
    let pending = Buffer.alloc(0);
    client.on('data', (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      for (let n = packetLength(pending); n !== undefined; n = packetLength(pending)) {
        const packet = pending.subarray(0, n);
        pending = pending.subarray(n);
        const header = packet[0] ?? 0;
        if (cutAt !== undefined && cutTopic === undefined && header >> 4 === 3) {
          let i = 1;
          while (((packet[i] ?? 0) & 0x80) !== 0) i++;
          const topicLength = packet.readUInt16BE(i + 1);
          const topic = packet.subarray(i + 3, i + 3 + topicLength).toString('utf8');
          if (cutAt(topic)) {
            cutTopic = topic;
            close();
            return;
          }
        }
        broker.write(packet);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  after(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return { url: `mqtt://127.0.0.1:${port}`, arm: (at) => (cutAt = at), cut: () => cutTopic, connections: () => connections };
}
