/**
 * Publishing that never makes the caller wait: publish() returns at once whatever the broker does.
 * Retained topics (bridge state, robot state and availability, discovery) are kept newest-wins and
 * sent again after every reconnect, since a broker restarted without persistence (aedes always,
 * mosquitto by default) has forgotten them; a clearing ('') is sent again until the broker took it.
 * Other messages wait in two bounded queues while the link is down or busy: what matters (a run's
 * events: its start, steps, gates and end) in one that nothing else can evict, and the rest
 * (answers to commands, health) in another; past a queue's bound its oldest is dropped and counted.
 * What matters goes first.
 */
import type { IClientPublishOptions, MqttClient } from 'mqtt';

export interface PublisherStats {
  readonly published: number;
  readonly queued: number;
  readonly dropped: number;
}

/** What Publisher needs of an mqtt.js client (a test may hand it a fake). */
export type PublishClient = Pick<MqttClient, 'publish' | 'connected'>;

interface Waiting {
  readonly topic: string;
  readonly payload: string;
  readonly qos: 0 | 1;
}

export interface PublisherLimits {
  /** Messages of each queue (what matters, the rest) kept while the link is down or busy; past it the oldest goes. */
  readonly maxQueued: number;
  /** Messages handed to the client and not yet written: past this, the link counts as busy. */
  readonly maxInFlight: number;
}

export const PUBLISHER_LIMITS: PublisherLimits = { maxQueued: 1000, maxInFlight: 64 };

export class Publisher {
  private client: PublishClient | undefined;
  /** Incremented at each connect and disconnect: a late callback of an older link is ignored. */
  private link = 0;
  private inFlight = 0;
  /** Every retained topic's newest payload ('' clears it at the broker, and is forgotten once the broker took it). */
  private readonly retained = new Map<string, string>();
  private readonly dirty = new Set<string>();
  /** A run's events: a flood of answers cannot push them out. */
  private readonly events: Waiting[] = [];
  private readonly queue: Waiting[] = [];
  private published = 0;
  private dropped = 0;

  /** `taken`: a retained message (or its clearing, '') the broker acknowledged: what it now keeps of ours. */
  constructor(
    private readonly limits: PublisherLimits = PUBLISHER_LIMITS,
    private readonly taken?: (topic: string, payload: string) => void,
  ) {}

  /** The link is up: every retained topic is sent again, then what waited. */
  connected(client: PublishClient): void {
    this.client = client;
    this.link++;
    this.inFlight = 0;
    for (const topic of this.retained.keys()) this.dirty.add(topic);
    this.drain();
  }

  /** The link went down: everything waits (bounded) for the next connect. */
  disconnected(): void {
    this.client = undefined;
    this.link++;
    this.inFlight = 0;
  }

  /**
   * A retained message, newest wins; '' removes the topic's retained message at the broker. The
   * same payload again is not sent again unless `force` (HA asked for discovery once more).
   */
  retain(topic: string, payload: string, force = false): void {
    if (!force && this.retained.get(topic) === payload) return;
    this.retained.set(topic, payload);
    this.dirty.add(topic);
    this.drain();
  }

  /**
   * A message that is not retained: sent now, or queued (bounded) until the link can take it.
   * `matters`: a run's event, kept in a queue of its own that goes first.
   */
  send(topic: string, payload: string, qos: 0 | 1 = 0, matters = false): void {
    const queue = matters ? this.events : this.queue;
    queue.push({ topic, payload, qos });
    if (queue.length > this.limits.maxQueued) {
      queue.shift();
      this.dropped++;
    }
    this.drain();
  }

  /** The retained payload last given for `topic` (for tests and the bridge's device list). */
  retainedPayload(topic: string): string | undefined {
    return this.retained.get(topic);
  }

  stats(): PublisherStats {
    return { published: this.published, queued: this.events.length + this.queue.length + this.dirty.size, dropped: this.dropped };
  }

  private drain(): void {
    // mqtt.js may know the link is gone a moment before its 'close' reaches the front door.
    while (this.client?.connected === true && this.inFlight < this.limits.maxInFlight) {
      const topic = this.dirty.values().next();
      if (!topic.done) {
        this.dirty.delete(topic.value);
        const payload = this.retained.get(topic.value) ?? '';
        this.write(topic.value, payload, { qos: 1, retain: true });
        continue;
      }
      const next = this.events.shift() ?? this.queue.shift();
      if (next === undefined) return;
      this.write(next.topic, next.payload, { qos: next.qos, retain: false });
    }
  }

  private write(topic: string, payload: string, options: IClientPublishOptions): void {
    const client = this.client;
    if (client === undefined) return;
    const link = this.link;
    this.inFlight++;
    try {
      client.publish(topic, payload, options, (err) => {
        if (link !== this.link) return;
        this.inFlight--;
        if (err === undefined || err === null) {
          this.published++;
          // A clearing is kept until the broker took it: cut short by the link (mqtt.js's reconnect
          // starts a new outgoing store, so it is not sent again there), it goes with the next
          // connect; taken, it is forgotten, or every reconnect would clear the topic again.
          if (payload === '' && options.retain === true && this.retained.get(topic) === '') this.retained.delete(topic);
          if (options.retain === true) this.taken?.(topic, payload);
          this.drain();
          return;
        }
        // Counted, never retried in a loop (a broker that refuses a topic would spin us): a
        // retained topic goes again with the next connect, and the next drain waits a turn.
        if (options.retain === true && !this.retained.has(topic)) this.retained.set(topic, payload);
        this.dropped++;
        setImmediate(() => this.drain());
      });
    } catch {
      // mqtt.js throws only for a topic or options it refuses: that message is lost, nothing else.
      this.inFlight--;
      this.dropped++;
    }
  }
}
