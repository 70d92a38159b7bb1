/**
 * Fleet memory: one body's memory shared by the quackds that hold it, through the fleet's broker.
 * The local store stays the store of record; replication is best-effort beside it and never on a
 * writer's path: it reads the store a few times a second (nothing happens while no transaction
 * committed) and publishes whatever differs from what the broker was last told, so writes from any
 * process (a run, `quackd memory add`, a service that was down) go out, and a broker that is away
 * only grows the difference, sent when it returns. What it was told is kept in a small state file
 * beside the store, so a forget made while the service was down still becomes a tombstone.
 *
 * What comes in is judged by the codec (wire.ts), merged by the rules (merge.ts) in one writer job
 * per batch, and remembered as told, so the broker's echo of our own messages costs nothing.
 */
import type { BodyKey } from '../../bodies/body.js';
import { logger } from '../../log.js';
import { isMemoryId } from '../entry.js';
import type { MemoryStore } from '../store.js';
import type { Merged } from './merge-job.js';
import { stamp, type Arrival } from './merge.js';
import { GONE, goneTime, readState, writeState } from './state.js';
import { decodeMessage, encodeEntry, encodeGone, entryTopic, memoryFilter, topicId, type Decoded } from './wire.js';

/** The broker as replication needs it: retained QoS 1 publishes, subscriptions kept across reconnects. */
export interface ShareLink {
  readonly online: boolean;
  /** Resolves once the broker has the message; rejects when it cannot say so in time. */
  publish(topic: string, payload: string): Promise<void>;
  subscribe(filter: string): void;
  onMessage(handler: (topic: string, payload: Buffer) => void): void;
  /** Called on each (re)connection. */
  onOnline(handler: () => void): void;
}

export interface SharedBody {
  readonly key: BodyKey;
  /** The robot of this quackd that holds the body: what other robots see as `from`. */
  readonly robot: string;
}

export interface ReplicatorOptions {
  /** The fleet's memory topic (wire.ts's SHARE_TOPIC): every quackd of the fleet uses the same. */
  readonly root: string;
  readonly bodies: readonly SharedBody[];
  /** Share episodes too (`memory.share: episodes`); by default they stay with the robot that ran. */
  readonly episodes: boolean;
  /** Where what the broker was told is kept (JSON, 0600). */
  readonly statePath: string;
  readonly pollMs?: number;
  /** How long after connecting the broker's retained messages are taken to have all arrived. */
  readonly settleMs?: number;
  readonly now?: () => Date;
}

export type DropReason = Exclude<Decoded, { ok: true }>['reason'];

export interface ShareStatus {
  readonly connected: boolean;
  /** Entries and forgets merged into this store, and published from it, since start. */
  readonly in: number;
  readonly out: number;
  /** Messages dropped, never stored: malformed, oversized, a secret, refused by the rules. */
  readonly dropped: number;
  /** Local changes the broker has not confirmed yet. */
  readonly pending: number;
  readonly lastSync?: string;
}


interface BodyState {
  readonly body: SharedBody;
  /** What the broker holds (confirmed, or as it told us) per id: an entry's stamp, or `gone <time>`. */
  readonly told: Map<string, string>;
  /** Published, not yet confirmed. */
  readonly sending: Map<string, string>;
  /** Arrivals waiting for the next merge. */
  inbox: Arrival[];
  /** Ids the broker handed us since the last connection: what it still holds. */
  readonly seen: Set<string>;
  /** Entries kept home because their id cannot be a topic level, each logged once. */
  readonly unshareable: Set<string>;
}

export class Replicator {
  private readonly bodies = new Map<BodyKey, BodyState>();
  private timer: NodeJS.Timeout | undefined;
  private settleTimer: NodeJS.Timeout | undefined;
  private saveTimer: NodeJS.Timeout | undefined;
  /** Merges and publishing rounds run one at a time, so neither sees the other half done. */
  private chain: Promise<void> = Promise.resolve();
  private busy = false;
  private again = false;
  private lastTxn: unknown;
  private stopped = false;
  private counts = { in: 0, out: 0, dropped: 0, pending: 0 };
  private lastSync: string | undefined;

  constructor(
    private readonly store: MemoryStore,
    private readonly link: ShareLink,
    private readonly options: ReplicatorOptions,
  ) {}

  start(): void {
    const saved = readState(this.options.statePath);
    for (const body of this.options.bodies) {
      this.bodies.set(body.key, { body, told: new Map(Object.entries(saved[body.key] ?? {})), sending: new Map(), inbox: [], seen: new Set(), unshareable: new Set() });
    }
    this.link.onMessage((topic, payload) => this.receive(topic, payload));
    this.link.onOnline(() => this.connected());
    for (const body of this.options.bodies) this.link.subscribe(memoryFilter(this.options.root, body.key));
    this.timer = setInterval(() => this.kick(false), this.options.pollMs ?? 200);
    this.timer.unref();
    this.kick(true);
  }

  /**
   * On each connection: once the broker has handed back what it retains, whatever we told it and
   * it no longer holds (a broker restarted without persistence, a retained message cleared) is
   * told again, so a robot that joins later still finds every entry and every forget.
   */
  private connected(): void {
    for (const state of this.bodies.values()) state.seen.clear();
    clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => {
      for (const state of this.bodies.values()) {
        for (const [id, told] of state.told) {
          if (state.seen.has(id) || state.sending.has(id)) continue;
          const gone = goneTime(told);
          if (gone !== undefined) this.publish(state, id, told, encodeGone(id, gone, state.body.robot));
          else state.told.delete(id);
        }
      }
      this.kick(true);
    }, this.options.settleMs ?? 1500);
    this.settleTimer.unref();
    this.kick(true);
  }

  status(): ShareStatus {
    return { connected: this.link.online, ...this.counts, ...(this.lastSync !== undefined ? { lastSync: this.lastSync } : {}) };
  }

  /** Waits for the round under way, keeps the state; idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.saveTimer);
    clearTimeout(this.settleTimer);
    await this.chain;
    this.save();
  }

  private receive(topic: string, payload: Buffer): void {
    for (const state of this.bodies.values()) {
      const id = topicId(this.options.root, state.body.key, topic);
      if (id === undefined) continue;
      if (payload.length > 0) state.seen.add(id);
      const d = decodeMessage(state.body.key, id, payload, state.body.robot);
      if (!d.ok) {
        if (d.reason !== 'empty') this.counts.dropped += 1;
        return;
      }
      const arrival = d.message.arrival;
      if (arrival.kind === 'entry' && arrival.entry.kind === 'episode' && !this.options.episodes) return;
      const told = state.told.get(id);
      // What the broker holds as we know it: our own message back (often before its PUBACK), a reconnect's retained.
      const says = arrival.kind === 'entry' ? stamp(arrival.entry) : `${GONE}${arrival.time}`;
      if (says === told || says === state.sending.get(id)) return;
      const forgotten = goneTime(told);
      if (arrival.kind === 'entry' && forgotten !== undefined && Date.parse(forgotten) >= Date.parse(arrival.entry.time)) {
        // An entry older than our forget of it: say the forget again, so the broker keeps it.
        this.publish(state, id, `${GONE}${forgotten}`, encodeGone(id, forgotten, state.body.robot));
        return;
      }
      state.inbox.push(arrival);
      this.kick(true);
      return;
    }
  }

  /** Runs a round now, or right after the one under way; `changed`: something besides the store did. */
  private kick(changed: boolean): void {
    if (this.stopped) return;
    if (changed) this.lastTxn = undefined;
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    this.chain = this.chain
      .then(() => this.round())
      .catch(() => undefined)
      .finally(() => {
        this.busy = false;
        if (this.again) {
          this.again = false;
          this.kick(true);
        }
      });
  }

  private async round(): Promise<void> {
    for (const state of this.bodies.values()) await this.merge(state);
    const txn = this.store.stats()['lastTxnId'];
    if (txn !== undefined && txn === this.lastTxn) return;
    this.lastTxn = txn;
    let pending = 0;
    for (const state of this.bodies.values()) pending += this.publishChanges(state);
    this.counts.pending = pending;
  }

  private async merge(state: BodyState): Promise<void> {
    const arrivals = state.inbox;
    if (arrivals.length === 0) return;
    state.inbox = [];
    let merged: Merged[];
    try {
      merged = await this.store.body(state.body.key).merge(arrivals);
    } catch {
      // The store was busy: they wait for the next round.
      state.inbox = [...arrivals, ...state.inbox];
      return;
    }
    merged.forEach((r, i) => {
      const arrival = arrivals[i];
      if (arrival === undefined) return;
      for (const id of r.del) state.told.delete(id);
      if (arrival.kind === 'gone') {
        if (r.outcome !== 'stale') state.told.set(r.id, `${GONE}${arrival.time}`);
        if (r.outcome === 'applied') this.counts.in += 1;
      } else if (r.outcome === 'stale') state.told.delete(r.id);
      else if (r.put.some((e) => e.id === r.id) || r.outcome === 'same') {
        state.told.set(r.id, stamp(arrival.entry));
        if (r.outcome === 'applied') this.counts.in += 1;
      }
      // stale: what we hold is newer, so it is no longer "told" and goes out again this round.
    });
    this.lastSync = (this.options.now?.() ?? new Date()).toISOString();
    this.saveSoon();
  }

  /** Publishes what differs from what the broker was told; returns how many are not yet confirmed. */
  private publishChanges(state: BodyState): number {
    const entries = this.store.body(state.body.key).entries().filter((e) => this.options.episodes || e.kind === 'note');
    const held = new Set<string>();
    let pending = 0;
    const claimed = (id: string) => state.sending.get(id) ?? state.told.get(id);
    for (const e of entries) {
      held.add(e.id);
      if (!this.shareable(state, e.id)) continue;
      const s = stamp(e);
      if (claimed(e.id) === s) continue;
      pending += 1;
      if (this.link.online) this.publish(state, e.id, s, encodeEntry(e, e.from ?? state.body.robot));
    }
    const now = (this.options.now?.() ?? new Date()).toISOString();
    for (const [id, told] of state.told) {
      if (held.has(id) || goneTime(told) !== undefined || goneTime(state.sending.get(id)) !== undefined || !this.shareable(state, id)) continue;
      pending += 1;
      if (this.link.online) this.publish(state, id, `${GONE}${now}`, encodeGone(id, now, state.body.robot));
    }
    return this.link.online ? state.sending.size : pending;
  }

  /**
   * An id from before ids were checked (entry.ts's isMemoryId) may hold `#`, `+` or `/`: published,
   * the broker would cut the link on every try and wedge everything queued behind it, and every
   * peer refuses such an id anyway. It stays in this store alone, said once.
   */
  private shareable(state: BodyState, id: string): boolean {
    if (isMemoryId(id)) return true;
    if (!state.unshareable.has(id)) {
      state.unshareable.add(id);
      logger('memory').warn({ body: state.body.key, id }, 'memory share: an entry whose id is not a memory id stays on this robot; forget it and add it again to share it');
    }
    return false;
  }

  private publish(state: BodyState, id: string, told: string, payload: string): void {
    state.sending.set(id, told);
    this.link.publish(entryTopic(this.options.root, state.body.key, id), payload).then(
      () => {
        if (state.sending.get(id) === told) state.sending.delete(id);
        state.told.set(id, told);
        this.counts.out += 1;
        this.counts.pending = Math.max(0, this.counts.pending - 1);
        this.lastSync = (this.options.now?.() ?? new Date()).toISOString();
        this.saveSoon();
      },
      () => {
        // Not confirmed: the next round sends it again.
        if (state.sending.get(id) === told) state.sending.delete(id);
        this.lastTxn = undefined;
      },
    );
  }

  private saveSoon(): void {
    if (this.saveTimer !== undefined || this.stopped) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.save();
    }, 500);
    this.saveTimer.unref();
  }

  private save(): void {
    const out: Record<string, Record<string, string>> = {};
    for (const [key, state] of this.bodies) out[key] = Object.fromEntries(state.told);
    try {
      writeState(this.options.statePath, out);
    } catch {
      // The next save tries again; at worst a restart publishes some entries twice.
    }
  }
}
