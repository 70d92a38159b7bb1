/**
 * The front door's side of the record of what quackd left at MQTT brokers (discovery-record.ts):
 * this start's broker's entry, kept as the broker acknowledges our retained messages and as the
 * announced entities change, written a moment later (a burst of acknowledgements at connect is one
 * write) and at stop; the other brokers' entries kept as they were, for when quackd serves through
 * one of them again, and said in the log at start while they still hold topics of ours: quackd has
 * no login for a broker it was moved away from, and would not go there uninvited.
 */
import { logger } from '../log.js';
import { discoveryRecordPath, MAX_BROKERS, readDiscoveryRecord, writeDiscoveryRecord, type BrokerRecord, type DiscoveryRecord } from './discovery-record.js';
import { LeftRetained } from './left-retained.js';

/** How long a change waits for the next before the record is written. */
const WRITE_DELAY_MS = 200;

export class BrokerLedger {
  private readonly log = logger('mqtt');
  private readonly left: LeftRetained;
  private others: readonly BrokerRecord[] = [];
  private published: readonly string[] = [];
  private gone: readonly string[] = [];
  /** The record as last read or written; undefined until open() read it (nothing is written before: it would drop the others). */
  private written: string | undefined;
  private timer: NodeJS.Timeout | undefined;

  /** `broker`: as the record names it (recordBrokerName); `external`: one that keeps retained messages past a restart. */
  constructor(
    private readonly dataDir: string | undefined,
    private readonly broker: string,
    external: boolean,
  ) {
    this.left = new LeftRetained(external);
  }

  /** Reads what earlier starts left; returns the config topics announced here before, cleared unless announced again. */
  open(): string[] {
    if (this.dataDir === undefined) return [];
    const path = discoveryRecordPath(this.dataDir);
    const { record, unreadable } = readDiscoveryRecord(this.dataDir, this.broker);
    if (unreadable !== undefined) this.log.warn({ path }, `${path} is unreadable (${unreadable}): quackd starts a new record of what it leaves at MQTT brokers; what the old one listed stays at its broker`);
    const mine = record.brokers.find((b) => b.broker === this.broker);
    let others = record.brokers.filter((b) => b !== mine && (b.published.length > 0 || b.gone.length > 0 || b.retained.length > 0));
    for (const old of others.slice(0, Math.max(0, others.length - (MAX_BROKERS - 1)))) {
      if (old.retained.length > 0) this.log.warn({ broker: old.broker, topics: old.retained.length }, `forgot the ${old.retained.length} retained topics quackd left at ${old.broker}: more than ${MAX_BROKERS} brokers are remembered; they stay there`);
    }
    others = others.slice(-(MAX_BROKERS - 1));
    for (const other of others) {
      if (other.retained.length === 0) continue;
      this.log.warn({ broker: other.broker, topics: other.retained.length }, `${other.retained.length} retained topics quackd left at ${other.broker} stay there: it serves through ${this.broker} now, and clears them when it serves through ${other.broker} again (Home Assistant there keeps their entities until then; listed in ${path})`);
    }
    this.others = others;
    this.left.load(mine?.retained ?? []);
    this.published = mine?.published ?? [];
    this.gone = mine?.gone ?? [];
    this.written = JSON.stringify(this.record());
    return [...this.gone, ...this.published];
  }

  /** The broker acknowledged a retained message of ours (a clearing when ''). */
  taken(topic: string, payload: string): void {
    if (this.left.taken(topic, payload)) this.soon();
  }

  /** The config topics announced now, and those cleared since. */
  announced(published: Iterable<string>, gone: Iterable<string>): void {
    this.published = [...published];
    this.gone = [...gone];
    this.soon();
  }

  /** What this broker holds of ours that this start does not publish (`now`). */
  stale(now: ReadonlySet<string>): string[] {
    return this.left.stale(now);
  }

  /** Writes what is pending now (at stop). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.write();
  }

  private soon(): void {
    if (this.written === undefined || this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.write();
    }, WRITE_DELAY_MS);
    this.timer.unref();
  }

  private record(): DiscoveryRecord {
    return { brokers: [...this.others, { broker: this.broker, published: this.published, gone: this.gone, retained: this.left.list() }] };
  }

  /** Written when it changed; one that cannot be written is a warning, and MQTT goes on. */
  private write(): void {
    if (this.dataDir === undefined || this.written === undefined) return;
    const record = this.record();
    const next = JSON.stringify(record);
    if (next === this.written) return;
    try {
      writeDiscoveryRecord(this.dataDir, record);
      this.written = next;
    } catch (err) {
      this.log.warn({ err }, 'could not keep the list of what quackd left at the MQTT broker: a robot removed from the fleet may stay in Home Assistant after the next start');
    }
  }
}
