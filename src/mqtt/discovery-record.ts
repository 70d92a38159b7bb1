/**
 * What this quackd last announced to Home Assistant, kept in its data directory
 * (`mqtt-discovery.json`): the discovery topics it published, and those it cleared since. The
 * broker alone cannot say it: the embedded broker keeps retained messages in memory (a restart
 * forgets the device list and every config), and a changed `base_topic` leaves the old device
 * list under the old one. From this file a robot removed or renamed, or a base topic changed, has
 * its entities cleared (an empty retained config) at the next start and again whenever Home
 * Assistant comes online, so HA removes them instead of keeping a device that never answers.
 *
 * Beside them, the other topics it left retained at an external broker (bridge/state,
 * bridge/devices, bridge/info, each robot's state and availability), as the broker took them, and
 * which broker: a start under another base topic, or without a robot, clears those it no longer
 * publishes. Only what this data directory's quackd wrote, never a wildcard: another machine may
 * share the broker.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMPONENTS } from './discovery.js';

/** The cleared topics kept, newest last: enough for many renames, a bounded file and a bounded burst. */
const MAX_GONE = 500;

export interface DiscoveryRecord {
  /** The config topics published last. */
  readonly published: readonly string[];
  /** Config topics published once and cleared since, cleared again for an HA that was not there. */
  readonly gone: readonly string[];
  /** The topics left retained at an external broker (`mqtt://host:1883`, never a login), until the broker took their clearing. */
  readonly retained?: { readonly broker: string; readonly topics: readonly string[] };
}

/** Retained topics kept at most: a fleet's few under a few base topics, bounded whatever the file says. */
const MAX_RETAINED = 2000;

export const discoveryRecordPath = (dataDir: string): string => join(dataDir, 'mqtt-discovery.json');

/** `<prefix>/<component>/<node>/<object>/config`, as discovery.ts makes them: nothing else is ever cleared from the file's word. */
function isConfigTopic(topic: unknown): topic is string {
  if (typeof topic !== 'string' || /[+#\0]/.test(topic)) return false;
  const parts = topic.split('/');
  const [component, node, object, config] = parts.slice(-4);
  return parts.length >= 5 && parts.slice(0, -4).every((p) => p !== '') && (COMPONENTS as readonly string[]).includes(component ?? '') && /^[A-Za-z0-9_-]+$/.test(node ?? '') && /^[A-Za-z0-9_-]+$/.test(object ?? '') && config === 'config';
}

/** `<base>/bridge/{state,devices,info}` or `<base>/<robot>/{state,availability}`, as topics.ts makes them: the only others ever cleared from the file's word. */
export function isRetainedTopic(topic: unknown): topic is string {
  return typeof topic === 'string' && !/[+#\0]/.test(topic) && /^[^/]+(\/[^/]+)*\/(bridge\/(state|devices|info)|[^/]+\/(state|availability))$/.test(topic);
}

/** The record a previous start left, or an empty one (none yet, or unreadable: then the broker's device list is all there is). */
export function readDiscoveryRecord(dataDir: string): DiscoveryRecord {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(discoveryRecordPath(dataDir), 'utf8'));
  } catch {
    return { published: [], gone: [] };
  }
  const list = (value: unknown): string[] => (Array.isArray(value) ? value.filter(isConfigTopic) : []);
  const r = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const kept = typeof r['retained'] === 'object' && r['retained'] !== null ? (r['retained'] as Record<string, unknown>) : undefined;
  const broker = kept?.['broker'];
  const topics = Array.isArray(kept?.['topics']) ? kept['topics'].filter(isRetainedTopic).slice(-MAX_RETAINED) : [];
  return { published: list(r['published']), gone: list(r['gone']), ...(typeof broker === 'string' ? { retained: { broker, topics } } : {}) };
}

/** Written whole (a temp file renamed over it), so a crash mid-write leaves the previous record. */
export function writeDiscoveryRecord(dataDir: string, record: DiscoveryRecord): void {
  const path = discoveryRecordPath(dataDir);
  const next = `${path}.${process.pid}.tmp`;
  const retained = record.retained !== undefined ? { retained: { broker: record.retained.broker, topics: record.retained.topics.slice(-MAX_RETAINED) } } : {};
  writeFileSync(next, `${JSON.stringify({ published: record.published, gone: record.gone.slice(-MAX_GONE), ...retained }, null, 2)}\n`, { mode: 0o600 });
  renameSync(next, path);
}
