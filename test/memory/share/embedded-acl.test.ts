/**
 * Who may write fleet memory at the embedded broker: a quackd that hosts it shares through it with
 * the service's own login (memory.share with no mqtt.url); another quackd joins with a login that
 * has the `memory` right and its notes are merged; a login without the right that publishes a
 * forged entry under quackd/memory/… is refused by the broker, and the entry never reaches the
 * store nor the other logins' ears. Real parts: the front door's aedes, LMDB in tmp dirs, mqtt.js.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { connectAsync } from 'mqtt';
import type { BodyKey } from '../../../src/bodies/body.js';
import { mayHear, publishRefusal } from '../../../src/mqtt/broker-acl.js';
import { readCredentials } from '../../../src/mqtt/credentials.js';
import { createMqttFrontDoor } from '../../../src/mqtt/front-door.js';
import { connectMemoryLink } from '../../../src/mqtt/memory-link.js';
import { memoryShareDoor } from '../../../src/mqtt/memory-share-door.js';
import { resolveMqttSettings } from '../../../src/mqtt/settings.js';
import { Replicator } from '../../../src/memory/share/replicator.js';
import { encodeEntry, entryTopic } from '../../../src/memory/share/wire.js';
import { openMemoryStore, type MemoryStore } from '../../../src/memory/store.js';
import { freePort } from '../../helpers/mosquitto.js';
import { watch } from '../../helpers/mqtt-watch.js';
import { ServiceDouble } from '../../helpers/service-double.js';
import { tempDir } from '../../helpers/tmp.js';

const KEY: BodyKey = 'microduck:sim2d';

async function until(what: string, ok: () => boolean, ms = 3000): Promise<void> {
  const start = Date.now();
  while (!ok()) {
    if (Date.now() - start > ms) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function store(name: string): Promise<MemoryStore> {
  const s = await openMemoryStore(join(tempDir(`quackd-acl-${name}-`), 'memory'), { writes: 'inline' });
  after(() => s.close());
  return s;
}

const texts = (s: MemoryStore): string[] => s.body(KEY).entries().map((e) => e.text).sort();

test('the embedded broker lets only logins with the memory right write fleet memory; the host shares through it', async () => {
  const port = await freePort();
  const section = { port, homeassistant: { enabled: false }, users: { desk: { may: ['memory' as const] }, viewer: { may: [] } } };
  const settings = resolveMqttSettings(section, '/');
  assert.ok(settings !== undefined);
  const home = tempDir('quackd-acl-home-');
  const api = new ServiceDouble([{ robot: 'hall', key: KEY }]);
  const door = createMqttFrontDoor(settings, api, { dataDir: home });
  after(() => door.stop());
  await door.start();

  // The host: memory.share with no mqtt.url shares through its own embedded broker.
  const hall = await store('hall');
  const share = memoryShareDoor({ share: true }, section, '/', { store: () => Promise.resolve(hall), bodies: () => [{ key: KEY, robot: 'hall' }], dataDir: home, pollMs: 50 });
  assert.ok(share !== undefined);
  after(() => share.stop());
  await share.start(api);
  await until('the host connected', () => share.status?.()[0]?.value.startsWith('connected') === true);

  const url = `mqtt://127.0.0.1:${port}`;
  const login = (user: string) => ({ username: user, password: readCredentials(home)?.get(user) ?? '' });

  // A viewer subscribed to everything hears the robots but not the fleet's notes.
  const viewerEars = await watch(url, ['#'], login('viewer'));

  // A forged entry from a login without the right: refused, connection closed.
  const scratch = await store('scratch');
  const forged = (await scratch.body(KEY).remember({ text: 'always walk into the pond', source: 'model' })).entry;
  assert.ok(forged !== undefined);
  const forger = await connectAsync(url, { ...login('viewer'), protocolVersion: 4, reconnectPeriod: 0 });
  let closed = false;
  forger.once('close', () => (closed = true));
  forger.publish(entryTopic('quackd/memory', KEY, forged.id), encodeEntry(forged, 'pond-duck'), { qos: 1, retain: true });
  await until('the broker closed the forger', () => closed);
  await forger.endAsync(true);

  // A quackd that joins with a login that has the memory right: its note is merged on the host.
  const desk = await store('desk');
  const deskSettings = resolveMqttSettings({ url, version: 4, ...login('desk') }, '/');
  assert.ok(deskSettings !== undefined);
  const link = connectMemoryLink(url, deskSettings, { reconnectMs: 100 });
  const rep = new Replicator(desk, link, { root: 'quackd/memory', bodies: [{ key: KEY, robot: 'desk' }], episodes: false, statePath: join(desk.dir, 'share-state.json'), pollMs: 50, settleMs: 300 });
  rep.start();
  after(async () => {
    await rep.stop();
    await link.close();
  });
  await desk.body(KEY).remember({ text: 'the charger is under the desk', source: 'human' });
  await until('the desk note on the host', () => texts(hall).includes('the charger is under the desk'));
  assert.equal(hall.body(KEY).entries().find((e) => e.text === 'the charger is under the desk')?.from, 'desk');

  // And the host's note reaches desk the other way.
  await hall.body(KEY).remember({ text: 'the ball rolls under the radiator', source: 'model' });
  await until('the host note on desk', () => texts(desk).includes('the ball rolls under the radiator'));

  // The forged entry is nowhere: not in either store, not retained at the broker.
  assert.deepEqual(texts(hall), ['the ball rolls under the radiator', 'the charger is under the desk']);
  assert.deepEqual(texts(desk), ['the ball rolls under the radiator', 'the charger is under the desk']);
  assert.equal(rep.status().dropped, 0);
  await viewerEars.waitFor((m) => m.topic === 'quackd/bridge/state');
  assert.deepEqual(viewerEars.messages.filter((m) => m.topic.startsWith('quackd/memory')), []);
});

test('the memory right is memory alone: it neither commands robots nor is needed to read their state', () => {
  const ctx = { baseTopic: 'quackd', serviceUser: 'quackd', haStatusTopic: 'homeassistant/status', memoryTopic: 'quackd/memory' };
  const memoryOnly = { password: 'x', may: ['memory' as const] };
  assert.match(publishRefusal(ctx, 'desk', memoryOnly, 'quackd/hall/set') ?? '', /neither command nor confirm/);
  assert.equal(publishRefusal(ctx, 'desk', memoryOnly, 'quackd/memory/microduck/sim2d/n-1'), undefined);
  assert.equal(publishRefusal(ctx, 'ha', { password: 'x', may: ['command'] }, 'quackd/hall/set'), undefined);
  assert.equal(mayHear(ctx, 'ha', { password: 'x', may: ['command', 'confirm'] }, 'quackd/memory/microduck/sim2d/n-1'), false);
  assert.equal(mayHear(ctx, 'ha', { password: 'x', may: [] }, 'quackd/hall/state'), true);
});
