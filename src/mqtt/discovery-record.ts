/**
 * What this quackd left at each MQTT broker it served through, kept in its data directory
 * (`mqtt-discovery.json`), one entry a broker: the Home Assistant configs it published there and
 * those it cleared since, and (an external broker's) every retained topic of ours the broker
 * acknowledged holding. The broker alone cannot say it: the embedded broker keeps retained
 * messages in memory (a restart forgets the device list and every config), and a changed
 * `base_topic` leaves the old topics under the old one. From this file a robot removed or renamed,
 * or a base topic changed, has its topics cleared (an empty retained message) at the next start.
 *
 * Keyed by broker because a list only means something where it was made: applied to another
 * broker it clears topics that broker never had, and overwritten there it forgets what the old
 * broker still holds. zigbee2mqtt reads the configs back from the broker it is connected to for
 * the same reason; quackd keeps its own word instead, so that it never clears what another
 * machine published. Only topics of the shapes quackd makes are read back, never a wildcard.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpBeside } from '../tmp-beside.js';
import { COMPONENTS } from './discovery.js';

/** The cleared topics kept a broker, newest last: enough for many renames, a bounded file and a bounded burst. */
const MAX_GONE = 500;
/** Retained topics kept a broker: a fleet's few under a few base topics, bounded whatever the file says. */
const MAX_RETAINED = 2000;
/** Brokers remembered, the one in use among them: the oldest beyond it is forgotten. */
export const MAX_BROKERS = 8;

export interface BrokerRecord {
  /** `embedded`, or the external broker's URL with its port and without a login. */
  readonly broker: string;
  /** The config topics published last there. */
  readonly published: readonly string[];
  /** Config topics published once and cleared since, cleared again for an HA that was not there. */
  readonly gone: readonly string[];
  /** Topics of ours an external broker acknowledged holding, until it acknowledged their clearing. */
  readonly retained: readonly string[];
}

export interface DiscoveryRecord {
  /** Oldest first; the broker of the last start last. */
  readonly brokers: readonly BrokerRecord[];
}

export interface RecordRead {
  readonly record: DiscoveryRecord;
  /** Why the file could not be read (cut short, not JSON): the record starts afresh. */
  readonly unreadable?: string;
}

export const discoveryRecordPath = (dataDir: string): string => join(dataDir, 'mqtt-discovery.json');

/** `<prefix>/<component>/<node>/<object>/config`, as discovery.ts makes them. */
export function isConfigTopic(topic: unknown): topic is string {
  if (typeof topic !== 'string' || /[+#\0]/.test(topic)) return false;
  const parts = topic.split('/');
  const [component, node, object, config] = parts.slice(-4);
  return parts.length >= 5 && parts.slice(0, -4).every((p) => p !== '') && (COMPONENTS as readonly string[]).includes(component ?? '') && /^[A-Za-z0-9_-]+$/.test(node ?? '') && /^[A-Za-z0-9_-]+$/.test(object ?? '') && config === 'config';
}

/** `<base>/bridge/{state,devices,info}` or `<base>/<robot>/{state,availability}`, as topics.ts makes them. */
export function isRetainedTopic(topic: unknown): topic is string {
  return typeof topic === 'string' && !/[+#\0]/.test(topic) && /^[^/]+(\/[^/]+)*\/(bridge\/(state|devices|info)|[^/]+\/(state|availability))$/.test(topic);
}

/** An external broker's name as the record keys it: `mqtt://host` and `mqtt://host:1883` are one broker. */
export function recordBrokerName(name: string): string {
  if (name === 'embedded') return name;
  try {
    const url = new URL(name);
    if (url.port === '') url.port = url.protocol === 'mqtts:' ? '8883' : '1883';
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return name;
  }
}

const objectOf = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
const listOf = (value: unknown, keep: (t: unknown) => t is string, max: number): string[] => (Array.isArray(value) ? [...new Set(value.filter(keep))].slice(-max) : []);

function entryOf(raw: unknown, broker: unknown): BrokerRecord | undefined {
  const r = objectOf(raw);
  if (typeof broker !== 'string' || broker === '') return undefined;
  const retained = (t: unknown): t is string => isRetainedTopic(t) || isConfigTopic(t);
  return { broker: recordBrokerName(broker), published: listOf(r['published'], isConfigTopic, MAX_RETAINED), gone: listOf(r['gone'], isConfigTopic, MAX_GONE), retained: listOf(r['retained'], retained, MAX_RETAINED) };
}

/**
 * The record the previous starts left. `current`: the broker a record of the first layout (one
 * broker, named only when external) is taken to be for when it names none, as that layout was used.
 */
export function readDiscoveryRecord(dataDir: string, current: string): RecordRead {
  let text: string;
  try {
    text = readFileSync(discoveryRecordPath(dataDir), 'utf8');
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    return { record: { brokers: [] }, ...(missing ? {} : { unreadable: (err as Error).message }) };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { record: { brokers: [] }, unreadable: text.trim() === '' ? 'empty' : 'not JSON: cut short?' };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { record: { brokers: [] }, unreadable: 'not a JSON object' };
  const r = raw as Record<string, unknown>;
  if (!Array.isArray(r['brokers'])) {
    // The first layout: this broker's lists at the top, the external broker's retained topics named.
    const kept = objectOf(r['retained']);
    const named = typeof kept['broker'] === 'string';
    const entry = entryOf({ published: r['published'], gone: r['gone'], retained: named ? [...(Array.isArray(kept['topics']) ? kept['topics'] : []), ...(Array.isArray(r['published']) ? r['published'] : [])] : [] }, named ? kept['broker'] : current);
    return { record: { brokers: entry !== undefined ? [entry] : [] } };
  }
  const brokers = new Map<string, BrokerRecord>();
  for (const item of r['brokers']) {
    const entry = entryOf(item, objectOf(item)['broker']);
    if (entry === undefined) continue;
    brokers.delete(entry.broker);
    brokers.set(entry.broker, entry);
  }
  return { record: { brokers: [...brokers.values()].slice(-MAX_BROKERS) } };
}

/** Written whole and flushed to the disk before a rename over the old one: a crash or a power cut mid-write leaves the previous record. */
export function writeDiscoveryRecord(dataDir: string, record: DiscoveryRecord): void {
  const path = discoveryRecordPath(dataDir);
  const next = tmpBeside(path);
  const brokers = record.brokers.slice(-MAX_BROKERS).map((b) => ({ broker: b.broker, published: b.published, gone: b.gone.slice(-MAX_GONE), retained: b.retained.slice(-MAX_RETAINED) }));
  const fd = openSync(next, 'w', 0o600);
  try {
    writeSync(fd, `${JSON.stringify({ brokers }, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(next, path);
  // The rename itself on the disk: a power cut after it must not bring the old record back.
  try {
    const dir = openSync(dirname(path), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  } catch {
    // A filesystem that cannot sync a directory: the rename is as safe as it makes it.
  }
}
