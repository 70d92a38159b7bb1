/**
 * The far end of an MQTT test: a plain mqtt.js client (as Home Assistant or a script would be)
 * that records what it receives, waits for a message, and sends a command and waits for its
 * answer. Closed when the test ends.
 */
import { connectAsync, type MqttClient } from 'mqtt';
import { after } from 'node:test';

export interface Received {
  readonly topic: string;
  readonly payload: string;
  readonly retain: boolean;
}

export interface Watcher {
  readonly client: MqttClient;
  readonly messages: Received[];
  /** The first message (already received or to come) that `match` accepts. */
  waitFor(match: (m: Received) => boolean, what?: string, timeoutMs?: number): Promise<Received>;
  /** Publishes `payload` on `topic` and waits for the answer on `responseTopic` with `transaction`. */
  ask(topic: string, payload: Record<string, unknown>, responseTopic: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

let transactions = 0;

/** A broker login (the embedded broker's, from its credentials file). */
export interface Login {
  readonly username: string;
  readonly password: string;
}

export async function watch(url: string, filters: readonly string[], login?: Login): Promise<Watcher> {
  const client = await connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0, clientId: `test_${process.pid}_${Math.random().toString(16).slice(2)}`, ...login });
  (client.stream as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
  const messages: Received[] = [];
  const waiters = new Set<() => void>();
  client.on('message', (topic, payload, packet) => {
    messages.push({ topic, payload: payload.toString('utf8'), retain: packet.retain });
    for (const w of waiters) w();
  });
  if (filters.length > 0) await client.subscribeAsync([...filters], { qos: 1 });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await client.endAsync(true);
  };
  after(close);
  const waitFor = (match: (m: Received) => boolean, what = 'a message', timeoutMs = 10_000): Promise<Received> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = messages.find(match);
        if (found === undefined) return false;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; got ${messages.length} messages: ${messages.slice(-5).map((m) => `${m.topic} ${m.payload.slice(0, 80)}`).join(' | ')}`));
      }, timeoutMs);
      if (!check()) waiters.add(check);
    });
  return {
    client,
    messages,
    waitFor,
    async ask(topic, payload, responseTopic) {
      const transaction = `t${++transactions}`;
      await client.publishAsync(topic, JSON.stringify({ ...payload, transaction }), { qos: 1 });
      const m = await waitFor((r) => r.topic === responseTopic && r.payload.includes(`"transaction":"${transaction}"`), `an answer on ${responseTopic}`);
      return JSON.parse(m.payload) as Record<string, unknown>;
    },
    close,
  };
}
