/**
 * Fleet memory's own connection to the broker (src/memory/share/replicator.ts's ShareLink): a
 * client of its own beside the front door's, so the retained memory flood of a late joiner never
 * queues behind a robot's state and a stop command, and the front door's settings stay its own.
 * mqtt.js reconnects and resubscribes (the broker sends every retained entry again, which the
 * replicator recognises); a publish not confirmed in time is reported failed and sent again later.
 */
import { randomBytes } from 'node:crypto';
import { connect, type MqttClient } from 'mqtt';
import type { ShareLink } from '../memory/share/replicator.js';
import { credentials, type MqttSettings } from './settings.js';

export interface MemoryLink extends ShareLink {
  readonly reason: string | undefined;
  close(): Promise<void>;
}

/** How long a publish may wait for the broker's PUBACK before it is tried again. */
const CONFIRM_MS = 10_000;

export function connectMemoryLink(url: string, settings: MqttSettings, options: { readonly reconnectMs?: number } = {}): MemoryLink {
  const client: MqttClient = connect(url, {
    protocolVersion: settings.version,
    clientId: `${settings.clientId ?? 'quackd'}_memory_${randomBytes(4).toString('hex')}`,
    clean: true,
    keepalive: 30,
    reconnectPeriod: options.reconnectMs ?? 1000,
    connectTimeout: 5000,
    resubscribe: true,
    ...credentials(settings),
  });
  const onOnline: (() => void)[] = [];
  let reason: string | undefined;
  client.on('connect', () => {
    reason = undefined;
    for (const f of onOnline) f();
  });
  client.on('error', (err) => {
    reason = err.message.split('\n')[0];
  });
  return {
    get online() {
      return client.connected;
    },
    get reason() {
      return reason;
    },
    publish: (topic, payload) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('not confirmed in time')), CONFIRM_MS);
        client.publish(topic, payload, { qos: 1, retain: true }, (err) => {
          clearTimeout(timer);
          if (err !== undefined && err !== null) reject(err);
          else resolve();
        });
      }),
    subscribe: (filter) => {
      client.subscribe(filter, { qos: 1 });
    },
    onMessage: (handler) => {
      client.on('message', (topic, payload) => handler(topic, payload));
    },
    onOnline: (handler) => {
      onOnline.push(handler);
    },
    close: () => client.endAsync(true),
  };
}
