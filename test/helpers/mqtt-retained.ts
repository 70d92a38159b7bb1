/**
 * What a broker holds retained, as a client connecting now (Home Assistant, a dashboard starting)
 * is handed it, for the tests of what `quackd serve` leaves behind and clears.
 */
import { watch } from './mqtt-watch.js';

/** The retained topics under `filter` a client connecting now is handed, with their payloads. */
export async function retainedUnder(url: string, filter: string): Promise<Map<string, string>> {
  const w = await watch(url, [filter]);
  await new Promise((r) => setTimeout(r, 400));
  await w.close();
  return new Map(w.messages.filter((m) => m.retain && m.payload !== '').map((m) => [m.topic, m.payload]));
}

/** Asked again (clearings go out beside the new topics as quackd connects) until `ok`, or the last answer. */
export async function retainedUntil(url: string, filter: string, ok: (held: Map<string, string>) => boolean, tries = 20): Promise<Map<string, string>> {
  let held = await retainedUnder(url, filter);
  for (let i = 0; !ok(held) && i < tries; i++) held = await retainedUnder(url, filter);
  return held;
}

/** Waits until the broker has `topic` (quackd serving there). */
export async function served(url: string, topic: string): Promise<void> {
  const w = await watch(url, [topic]);
  await w.waitFor((m) => m.topic === topic, topic);
  await w.close();
}

/** Another machine's quackd on the same broker and base topic: a retained state none of ours to clear. */
export async function otherMachine(url: string): Promise<void> {
  const other = await watch(url, []);
  await other.client.publishAsync('quackd/kitchen/state', '{"robot":"kitchen"}', { qos: 1, retain: true });
  await other.close();
}
