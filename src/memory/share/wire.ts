/**
 * Fleet memory on the wire: one retained message per entry at `<root>/<adapter>/<backend>/<id>`
 * (root: `quackd/memory`, the whole fleet's whatever each quackd's base topic),
 * the entry itself or, for a forget, a tombstone. Decoding is where a message from the broker is
 * judged: its size, its shape, the topic it came on, and the rules every write obeys (300
 * characters, no secrets). A message that fails is dropped with a reason and never stored.
 */
import type { BodyKey } from '../../bodies/body.js';
import { MemoryRefusal, entrySchema, isMemoryId, type Entry } from '../entry.js';
import { checkFields, validateText } from '../rules.js';
import type { Arrival } from './merge.js';

/** Larger than any entry the rules allow (300 characters, 10 of history), far smaller than a flood. */
export const MAX_MESSAGE_BYTES = 16 * 1024;

/** A robot's name as the fleet says it: MQTT-safe, short. */
const ROBOT = /^[A-Za-z0-9][\w.-]{0,63}$/;

/** Where the fleet's memory lives unless `memory.share_topic` says otherwise. */
export const SHARE_TOPIC = 'quackd/memory';

export const memoryFilter = (root: string, key: BodyKey): string => `${bodyTopic(root, key)}/+`;
export const entryTopic = (root: string, key: BodyKey, id: string): string => `${bodyTopic(root, key)}/${id}`;
const bodyTopic = (root: string, key: BodyKey): string => `${root}/${key.replace(':', '/')}`;

/** What a message says, once decoded: which robot sent it, and the entry or the forget. */
export interface Received {
  readonly key: BodyKey;
  readonly robot: string;
  readonly arrival: Arrival;
}

export type Decoded = { readonly ok: true; readonly message: Received } | { readonly ok: false; readonly reason: 'oversized' | 'malformed' | 'secret' | 'refused' | 'empty' };

/** The message for `entry` as robot `robot` says it (an entry's local order and relay stay home). */
export function encodeEntry(entry: Entry, robot: string): string {
  const { seq: _seq, from: _from, ...rest } = entry;
  return JSON.stringify({ v: 1, robot, entry: rest });
}

export function encodeGone(id: string, time: string, robot: string): string {
  return JSON.stringify({ v: 1, robot, gone: { id, time } });
}

/** The id an entry topic of `key` names, or undefined for another topic. */
export function topicId(root: string, key: BodyKey, topic: string): string | undefined {
  const prefix = `${bodyTopic(root, key)}/`;
  if (!topic.startsWith(prefix)) return undefined;
  const id = topic.slice(prefix.length);
  return id !== '' && !id.includes('/') ? id : undefined;
}

const isIso = (v: unknown): v is string => typeof v === 'string' && !Number.isNaN(Date.parse(v));

/**
 * Judges one message that came on `id`'s topic of body `key`. An empty payload is a retained
 * message being cleared (`empty`, not counted as a fault); `self` is this quackd's robot name, whose
 * own entries are stored without a `from`.
 */
export function decodeMessage(key: BodyKey, id: string, payload: Buffer, self: string): Decoded {
  if (payload.length === 0) return { ok: false, reason: 'empty' };
  // What no quackd publishes (replicator.ts keeps such an entry home) no quackd takes in either.
  if (!isMemoryId(id)) return { ok: false, reason: 'refused' };
  if (payload.length > MAX_MESSAGE_BYTES) return { ok: false, reason: 'oversized' };
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (typeof value !== 'object' || value === null) return { ok: false, reason: 'malformed' };
  const m = value as Record<string, unknown>;
  const robot = m['robot'];
  if (m['v'] !== 1 || typeof robot !== 'string' || !ROBOT.test(robot)) return { ok: false, reason: 'malformed' };
  const gone = m['gone'];
  if (gone !== undefined) {
    const g = gone as Record<string, unknown>;
    if (typeof gone !== 'object' || gone === null || g['id'] !== id || !isIso(g['time'])) return { ok: false, reason: 'malformed' };
    return { ok: true, message: { key, robot, arrival: { kind: 'gone', id, time: g['time'] } } };
  }
  const parsed = entrySchema.safeParse({ ...(m['entry'] as object), seq: 0 });
  if (!parsed.success || parsed.data.id !== id || parsed.data.body !== key) return { ok: false, reason: 'malformed' };
  const { from: _from, ...e } = parsed.data;
  try {
    // The same rules as every other path in: what a local write would refuse is refused here too.
    if (validateText(e.text, e.kind) !== e.text) return { ok: false, reason: 'malformed' };
    checkFields(e, { id: e.id, history: e.history });
  } catch (err) {
    if (err instanceof MemoryRefusal) return { ok: false, reason: err.code === 'secret' ? 'secret' : 'refused' };
    throw err;
  }
  const entry: Entry = { ...e, ...(robot !== self ? { from: robot } : {}) };
  return { ok: true, message: { key, robot, arrival: { kind: 'entry', entry } } };
}
