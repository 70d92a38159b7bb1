/**
 * The merge rules of fleet memory, as pure functions over one body's entries: what a quackd does
 * with an entry or a tombstone another quackd published. Every quackd applies the same rules to
 * the same messages in any order and ends with the same entries (bar each one's cap), so a late
 * joiner that reads the retained messages agrees with robots that saw them live.
 *
 * - The same id: the newer time wins; equal times, the larger version (stamp) wins.
 * - The same topic under another id: the newer time supersedes; equal times, the smaller id.
 * - The same text under another id: one note, the smaller id, refreshed to the newer time.
 * - A tombstone removes an entry no newer than itself and loses to a newer one.
 * - The cap (400) is applied after merging, as on every write.
 */
import { BODY_CAP, type Entry } from '../entry.js';
import { overCap } from '../rules.js';

/** What arrived: an entry (its `from` says which robot wrote it), or a forget of one. */
export type Arrival = { readonly kind: 'entry'; readonly entry: Entry } | { readonly kind: 'gone'; readonly id: string; readonly time: string };

/**
 * - applied: the store changed.
 * - same: it already says this.
 * - stale: this store holds something newer under that id; it should say so again on the broker.
 * - lost: another entry of this store outranks it (a topic's newer note, the same text's smaller id).
 */
export type MergeOutcome = 'applied' | 'same' | 'stale' | 'lost';

export interface MergePlan {
  readonly outcome: MergeOutcome;
  readonly put: readonly Entry[];
  readonly del: readonly string[];
}

/** An entry's version as the fleet sees it: everything but its local order and who relayed it. */
export function stamp(e: Entry): string {
  return JSON.stringify([e.id, e.kind, e.time, e.text, e.topic ?? null, e.tags, e.source, e.run ?? null, e.created, e.history]);
}

/** Does `a` outrank `b` (same id)? Newer time; equal times, the larger stamp, so every robot picks the same. */
export function newerVersion(a: Entry, b: Entry): boolean {
  if (a.time !== b.time) return Date.parse(a.time) > Date.parse(b.time);
  return stamp(a) > stamp(b);
}

/** Does `a` outrank `b` for one topic? Newer time; equal times, the smaller id. */
function winsTopic(a: Entry, b: Entry): boolean {
  const ta = Date.parse(a.time);
  const tb = Date.parse(b.time);
  return ta !== tb ? ta > tb : a.id < b.id;
}

const later = (a: string, b: string): string => (Date.parse(a) >= Date.parse(b) ? a : b);
const nextSeq = (entries: readonly Entry[]): number => entries.reduce((m, e) => Math.max(m, e.seq), 0) + 1;

const NOTHING = (outcome: MergeOutcome): MergePlan => ({ outcome, put: [], del: [] });

/** Plans merging `arrival` into a body whose entries are `current`; `cap` is applied after. */
export function planMerge(current: readonly Entry[], arrival: Arrival, cap = BODY_CAP): MergePlan {
  if (arrival.kind === 'gone') {
    const held = current.find((e) => e.id === arrival.id);
    if (held === undefined) return NOTHING('same');
    return Date.parse(held.time) <= Date.parse(arrival.time) ? { outcome: 'applied', put: [], del: [held.id] } : NOTHING('stale');
  }
  const incoming = arrival.entry;
  const held = current.find((e) => e.id === incoming.id);
  if (held !== undefined) {
    if (stamp(held) === stamp(incoming)) return NOTHING('same');
    if (!newerVersion(incoming, held)) return NOTHING('stale');
    return capped(current, { ...incoming, seq: nextSeq(current) }, [held.id], cap);
  }
  if (incoming.kind === 'note') {
    const notes = current.filter((e) => e.kind === 'note');
    const rival = incoming.topic !== undefined ? notes.find((n) => n.topic === incoming.topic) : undefined;
    if (rival !== undefined) return winsTopic(incoming, rival) ? capped(current, { ...incoming, seq: nextSeq(current) }, [rival.id], cap) : NOTHING('lost');
    const twin = notes.find((n) => n.text === incoming.text && n.topic === undefined && incoming.topic === undefined);
    if (twin !== undefined) {
      const time = later(twin.time, incoming.time);
      if (twin.id < incoming.id) return time === twin.time ? NOTHING('lost') : capped(current, { ...twin, time, seq: nextSeq(current) }, [], cap);
      return capped(current, { ...incoming, time, seq: nextSeq(current) }, [twin.id], cap);
    }
  }
  return capped(current, { ...incoming, seq: nextSeq(current) }, [], cap);
}

function capped(current: readonly Entry[], entry: Entry, del: string[], cap: number): MergePlan {
  const gone = new Set(del);
  const after = [...current.filter((e) => !gone.has(e.id) && e.id !== entry.id), entry];
  const evicted = overCap(after, cap);
  const out = new Set(evicted.map((e) => e.id));
  return { outcome: 'applied', put: out.has(entry.id) ? [] : [entry], del: [...del, ...evicted.filter((e) => e.id !== entry.id).map((e) => e.id)] };
}
