/**
 * The topics of ours an external broker holds retained (Home Assistant's configs, bridge/state,
 * bridge/devices, bridge/info, each robot's state and availability), as it acknowledged taking
 * them, and forgotten once it acknowledged their clearing. A start under another base topic, or
 * without a robot, clears those it no longer publishes; a clearing cut short by the link is sent
 * again when it is back (the Publisher keeps it until acknowledged), so what is listed here is what
 * the broker may still hold. The embedded broker keeps nothing past its own restart: nothing to keep.
 */
import { isConfigTopic, isRetainedTopic } from './discovery-record.js';

export class LeftRetained {
  private readonly topics = new Set<string>();

  /** `external`: a broker that keeps retained messages past its restart (not the embedded one). */
  constructor(private readonly external: boolean) {}

  /** What an earlier start left at this broker, as the record has it. */
  load(topics: readonly string[]): void {
    if (!this.external) return;
    for (const topic of topics) if (isRetainedTopic(topic) || isConfigTopic(topic)) this.topics.add(topic);
  }

  /** The broker took a retained message of ours (a clearing when ''); true when the list changes. */
  taken(topic: string, payload: string): boolean {
    if (!this.external || !(isRetainedTopic(topic) || isConfigTopic(topic))) return false;
    if (payload === '') return this.topics.delete(topic);
    if (this.topics.has(topic)) return false;
    this.topics.add(topic);
    return true;
  }

  /** Those left that this start does not publish (`now`: what it does). */
  stale(now: ReadonlySet<string>): string[] {
    return [...this.topics].filter((t) => !now.has(t));
  }

  list(): string[] {
    return [...this.topics];
  }
}
