/**
 * The coordinator's one connection to the broker its remote members' services share, opened only
 * when a flock has a remote member (mqtt.js is imported then, never for a flock of local robots).
 * It speaks as any MQTT client of a `quackd serve` does: subscribe to a robot's topics, publish on
 * its `set`, match an answer on `set/response` by its transaction. The broker and its login come
 * from the config file's `mqtt:` section, as the service on this Pi uses them.
 */
import { randomBytes } from 'node:crypto';
import type { IClientOptions, MqttClient } from 'mqtt';
import { brokerRefusal } from '../mqtt/refusal.js';
import { credentials, describeBroker, type MqttSettings } from '../mqtt/settings.js';

export interface BrokerLink {
  /** The broker as a person reads it (never a password). */
  readonly name: string;
  /** Calls `listener` with every message on these exact topics (retained ones first); returns the unsubscribe. */
  subscribe(topics: readonly string[], listener: (topic: string, payload: string) => void): Promise<() => void>;
  publish(topic: string, payload: Readonly<Record<string, unknown>>): void;
  /** Publishes with a fresh transaction and resolves with the answer on `responseTopic` that echoes it. */
  request(topic: string, responseTopic: string, payload: Readonly<Record<string, unknown>>, timeoutMs: number): Promise<Record<string, unknown>>;
  /** Called once when the connection is gone (the broker went away, or close()). */
  onClose(listener: (why: string) => void): void;
  close(): Promise<void>;
}

const CONNECT_TIMEOUT_MS = 5000;

function urlOf(settings: MqttSettings): string {
  return settings.broker.kind === 'external' ? settings.broker.url : `mqtt://${settings.broker.host}:${settings.broker.port}`;
}

/** Connects, or throws one line saying why (refused, unreachable, turned down and which setting to fix). */
export async function openBrokerLink(settings: MqttSettings): Promise<BrokerLink> {
  const { connectAsync } = await import('mqtt');
  const name = describeBroker(settings);
  const options: IClientOptions = {
    protocolVersion: settings.version,
    clientId: `quackd_flock_${randomBytes(4).toString('hex')}`,
    clean: true,
    keepalive: 30,
    // A flock is minutes long: a broker that goes away drops its remote members rather than retry behind them.
    reconnectPeriod: 0,
    connectTimeout: CONNECT_TIMEOUT_MS,
    ...credentials(settings),
  };
  let client: MqttClient;
  try {
    client = await connectAsync(urlOf(settings), options);
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    throw new Error(`the broker ${name} cannot be reached: ${brokerRefusal(e) ?? e.message.split('\n')[0] ?? 'error'}`);
  }
  // A stop must not sit out Nagle's delay: commands are small packets.
  (client.stream as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
  const listeners = new Map<string, Set<(topic: string, payload: string) => void>>();
  const closers: ((why: string) => void)[] = [];
  let closed: string | undefined;
  client.on('message', (topic, payload) => {
    for (const l of listeners.get(topic) ?? []) l(topic, payload.toString('utf8'));
  });
  client.on('close', () => {
    if (closed !== undefined) return;
    closed = `the connection to the broker ${name} closed`;
    for (const c of closers.splice(0)) c(closed);
  });
  let transactions = 0;
  const prefix = randomBytes(3).toString('hex');
  return {
    name,
    async subscribe(topics, listener) {
      for (const t of topics) listeners.set(t, (listeners.get(t) ?? new Set()).add(listener));
      await client.subscribeAsync([...topics], { qos: 1 });
      return () => {
        for (const t of topics) listeners.get(t)?.delete(listener);
      };
    },
    publish(topic, payload) {
      if (closed === undefined) client.publish(topic, JSON.stringify(payload), { qos: 1 });
    },
    request(topic, responseTopic, payload, timeoutMs) {
      const transaction = `flock-${prefix}-${++transactions}`;
      return new Promise((resolve, reject) => {
        const set = listeners.get(responseTopic) ?? new Set();
        const done = (): void => {
          clearTimeout(timer);
          set.delete(onAnswer);
        };
        const onAnswer = (_topic: string, text: string): void => {
          let answer: unknown;
          try {
            answer = JSON.parse(text);
          } catch {
            return;
          }
          if (typeof answer !== 'object' || answer === null || (answer as { transaction?: unknown }).transaction !== transaction) return;
          done();
          resolve(answer as Record<string, unknown>);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no answer on ${responseTopic} within ${Math.round(timeoutMs / 1000)} s`));
        }, timeoutMs);
        listeners.set(responseTopic, set.add(onAnswer));
        // The response topic is subscribed by the member before it asks anything.
        client.publish(topic, JSON.stringify({ ...payload, transaction }), { qos: 1 });
      });
    },
    onClose(listener) {
      if (closed !== undefined) listener(closed);
      else closers.push(listener);
    },
    async close() {
      if (closed !== undefined) return;
      closed = 'closed';
      await client.endAsync();
    },
  };
}
