/** A Foxglove WebSocket client for the tests (the protocol package's FoxgloveClient over `ws`): what it was advertised and every message it got, decoded. */
import assert from 'node:assert/strict';
import wsProtocol, { type Channel, type MessageData } from '@foxglove/ws-protocol';
import { WebSocket } from 'ws';
import { waitFor } from './pty-pair.js';
import { decodeMessage } from './mcap.js';

export interface Watcher {
  readonly ws: WebSocket;
  readonly channels: Map<string, Channel>;
  /** topic → messages, decoded */
  readonly got: Map<string, unknown[]>;
  subscribe(topic: string): void;
  close(): void;
}

/** A Foxglove client under `subprotocol`: connected, channels advertised (`first` among them: a robot's joint states). */
export async function watch(url: string, subprotocol: string, first = '/joints/measured'): Promise<Watcher> {
  const ws = new WebSocket(url, [subprotocol]);
  const client = new wsProtocol.FoxgloveClient({ ws: ws as unknown as ConstructorParameters<typeof wsProtocol.FoxgloveClient>[0]['ws'] });
  const channels = new Map<string, Channel>();
  const got = new Map<string, unknown[]>();
  const topics = new Map<number, string>();
  client.on('advertise', (list) => list.forEach((c) => channels.set(c.topic, c)));
  client.on('message', (m: MessageData) => {
    const topic = topics.get(m.subscriptionId) ?? '?';
    const channel = channels.get(topic);
    got.set(topic, [...(got.get(topic) ?? []), decodeMessage(channel?.encoding ?? '', channel?.schemaName ?? '', new Uint8Array(m.data.buffer, m.data.byteOffset, m.data.byteLength))]);
  });
  await waitFor(`${subprotocol}: the channels advertised`, () => channels.has(first), 10_000);
  return {
    ws,
    channels,
    got,
    subscribe(topic) {
      const channel = channels.get(topic);
      assert.ok(channel !== undefined, `${topic} is not advertised`);
      topics.set(client.subscribe(channel.id), topic);
    },
    close: () => client.close(),
  };
}
