/**
 * The topics this quackd left retained at an external broker besides Home Assistant's configs
 * (bridge/state, bridge/devices, bridge/info, each robot's state and availability), as the broker
 * acknowledged them, kept in the discovery record (discovery-record.ts). A start under another
 * base topic, or without a robot, clears those it no longer publishes; a clearing the broker took
 * is forgotten. The embedded broker keeps nothing past its own restart: nothing to keep for it.
 */
import { isRetainedTopic, type DiscoveryRecord } from './discovery-record.js';
import type { Topics } from './topics.js';

export class LeftRetained {
  private readonly topics = new Set<string>();

  /** `broker`: the external broker as the record names it (never a login); undefined for the embedded one. */
  constructor(private readonly broker: string | undefined) {}

  /** What an earlier start left at this broker; another broker's list is not ours to clear here. */
  load(record: DiscoveryRecord): void {
    if (this.broker === undefined || record.retained?.broker !== this.broker) return;
    for (const topic of record.retained.topics) this.topics.add(topic);
  }

  /** The broker took a retained message of ours (a clearing when ''); true when the record changes. */
  taken(topic: string, payload: string): boolean {
    if (this.broker === undefined || !isRetainedTopic(topic)) return false;
    if (payload === '') return this.topics.delete(topic);
    if (this.topics.has(topic)) return false;
    this.topics.add(topic);
    return true;
  }

  /** Those left that this start does not publish: the bridge's, and the robots' it serves, are. */
  stale(topics: Topics, robots: Iterable<string>): string[] {
    const now = new Set([topics.bridgeState, topics.bridgeDevices, topics.bridgeInfo]);
    for (const robot of robots) now.add(topics.robotState(robot)).add(topics.robotAvailability(robot));
    return [...this.topics].filter((t) => !now.has(t));
  }

  /** The record's part, for an external broker. */
  record(): Pick<DiscoveryRecord, 'retained'> {
    return this.broker === undefined ? {} : { retained: { broker: this.broker, topics: [...this.topics] } };
  }
}
