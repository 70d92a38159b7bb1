/**
 * Home Assistant's ghost devices: `quackd serve` (the built bin in a child) restarted with a robot
 * removed from config.yaml, or with another mqtt.base_topic, clears what it announced before (an
 * empty config on each of the old discovery topics), on the embedded broker (whose retained
 * messages a restart forgets) when HA comes online, and on a real mosquitto (whose retained device
 * list sits under the old base topic) at start. The robots still served keep their entities. The
 * rest it left retained under an old base topic on a real mosquitto (bridge/state, bridge/devices,
 * bridge/info, each robot's state and availability) is cleared too, and only that: another
 * machine's retained topics under the same base stay.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { freePort, noMosquitto, startMosquitto } from '../helpers/mosquitto.js';
import { watch, type Received } from '../helpers/mqtt-watch.js';
import { quackd } from '../helpers/quackd.js';
import { serve } from '../helpers/serve.js';
import { tempDir } from '../helpers/tmp.js';

const isConfig = (m: Received) => m.topic.startsWith('homeassistant/') && m.topic.endsWith('/config');

/** The configs a client connecting now is handed (retained), by topic. */
async function retainedConfigs(url: string, login?: { username: string; password: string }): Promise<string[]> {
  const w = await watch(url, ['homeassistant/#'], login);
  await new Promise((r) => setTimeout(r, 500));
  await w.close();
  return w.messages.filter((m) => m.retain && isConfig(m) && m.payload !== '').map((m) => m.topic);
}

/**
 * retainedConfigs once `want` holds of them, asked again for up to 5 s: `quackd serve` says ready
 * before its MQTT link is up (a broker down at boot must not hold the service), so its first
 * announcements may come after a client that connected at once was handed the retained ones (a
 * clean-clone CI run found none 500 ms after ready, once).
 */
async function retainedConfigsOnce(url: string, want: (topics: string[]) => boolean, login?: { username: string; password: string }): Promise<string[]> {
  const by = Date.now() + 5000;
  for (;;) {
    const topics = await retainedConfigs(url, login);
    if (want(topics) || Date.now() > by) return topics;
  }
}

/** The retained topics under `filter` a client connecting now is handed, with their payloads. */
async function retainedUnder(url: string, filter: string): Promise<Map<string, string>> {
  const w = await watch(url, [filter]);
  await new Promise((r) => setTimeout(r, 500));
  await w.close();
  return new Map(w.messages.filter((m) => m.retain && m.payload !== '').map((m) => [m.topic, m.payload]));
}

async function stop(s: Awaited<ReturnType<typeof serve>>): Promise<void> {
  s.child.kill('SIGTERM');
  assert.equal((await s.exited).code, 0);
}

describe('Home Assistant entities of what is no longer served are cleared at the next start', () => {
  it('the embedded broker: a robot removed from config.yaml has its configs cleared when HA comes online; the others are announced', async () => {
    const port = await freePort();
    const url = `mqtt://127.0.0.1:${port}`;
    const home = tempDir('quackd-ghost-embedded-');
    const config = (robots: string) => `robots:\n${robots}mqtt:\n  port: ${port}\n`;
    let s = await serve(home, config('  den: { body: microduck:sim2d }\n  hall: { body: microduck:sim2d }\n'));
    const creds = await quackd(['mqtt', 'credentials', '--json'], { env: { QUACKD_HOME: home } });
    const login = { username: 'homeassistant', password: (JSON.parse(creds.stdout) as { users: { user: string; password: string }[] }).users.find((u) => u.user === 'homeassistant')?.password ?? '' };
    const before = await retainedConfigsOnce(url, (t) => t.filter((c) => c.includes('/quackd_hall/')).length >= 3, login);
    const hall = before.filter((t) => t.includes('/quackd_hall/'));
    assert.ok(hall.length >= 3, `hall announced: ${before.join(' ')}`);
    await stop(s);

    s = await serve(home, config('  den: { body: microduck:sim2d }\n'));
    // HA connects to the broker quackd started, subscribes, then says it is online (its birth).
    const ha = await watch(url, ['homeassistant/#'], login);
    await ha.client.publishAsync('homeassistant/status', 'online', { qos: 1 });
    for (const topic of hall) await ha.waitFor((m) => m.topic === topic && m.payload === '', `${topic} cleared`, 5000);
    await ha.waitFor((m) => m.topic.includes('/quackd_den/') && m.payload !== '', 'den announced');
    assert.deepEqual(ha.messages.filter((m) => m.topic.includes('/quackd_den/') && m.payload === '').map((m) => m.topic), [], 'den keeps its entities');
    await ha.close();
    await stop(s);
  });

  it('a real mosquitto: a changed base_topic clears the entities announced under the old one, and announces the new', { skip: noMosquitto }, async () => {
    const broker = await startMosquitto();
    after(() => broker.stop());
    const home = tempDir('quackd-ghost-base-');
    let s = await serve(home, `robots:\n  den: { body: microduck:sim2d }\nmqtt:\n  url: ${broker.url}\n`);
    const old = await retainedConfigsOnce(broker.url, (t) => t.some((c) => c.includes('/quackd_den/')));
    assert.ok(old.some((t) => t.includes('/quackd_den/')), old.join(' '));
    await stop(s);

    s = await serve(home, `robots:\n  den: { body: microduck:sim2d }\nmqtt:\n  url: ${broker.url}\n  base_topic: duckhouse\n`);
    const w = await watch(broker.url, ['duckhouse/bridge/devices']);
    await w.waitFor((m) => m.topic === 'duckhouse/bridge/devices', 'the new device list');
    await w.close();
    // A client connecting now (Home Assistant starting) is handed the new base topic's entities only.
    const now = await retainedConfigs(broker.url);
    assert.deepEqual(now.filter((t) => t.includes('/quackd_')), [], 'no entity of the old base topic');
    assert.ok(now.some((t) => t.includes('/duckhouse_den/')), now.join(' '));
    await stop(s);
  });

  it("a real mosquitto: a changed base_topic clears the bridge's and robots' topics left retained under the old one, and only those", { skip: noMosquitto }, async () => {
    const broker = await startMosquitto();
    after(() => broker.stop());
    const home = tempDir('quackd-ghost-retained-');
    // Another machine's quackd on the same broker and base topic: none of ours to clear.
    const other = await watch(broker.url, []);
    await other.client.publishAsync('quackd/kitchen/state', '{"robot":"kitchen"}', { qos: 1, retain: true });
    await other.close();
    const config = (base: string) => `robots:\n  den: { body: microduck:sim2d }\n  hall: { body: microduck:sim2d }\nmqtt:\n  url: ${broker.url}\n  base_topic: ${base}\n`;
    let s = await serve(home, config('quackd'));
    const w = await watch(broker.url, ['quackd/bridge/info']);
    await w.waitFor((m) => m.topic === 'quackd/bridge/info', 'the old bridge/info');
    await w.close();
    await stop(s);
    const ours = ['quackd/bridge/state', 'quackd/bridge/devices', 'quackd/bridge/info', 'quackd/den/state', 'quackd/den/availability', 'quackd/hall/state', 'quackd/hall/availability'];
    const left = await retainedUnder(broker.url, 'quackd/#');
    assert.deepEqual([...left.keys()].sort(), [...ours, 'quackd/kitchen/state'].sort(), 'what the first start left retained');
    assert.equal(left.get('quackd/bridge/state'), 'offline');

    s = await serve(home, config('duckhouse'));
    const n = await watch(broker.url, ['duckhouse/bridge/devices']);
    await n.waitFor((m) => m.topic === 'duckhouse/bridge/devices', 'the new device list');
    await n.close();
    // A client connecting now (a dashboard starting) is handed the new base topic's, and the other machine's.
    // The clearings go out as it connects, beside the new topics: asked again until they are in.
    let old = await retainedUnder(broker.url, 'quackd/#');
    for (let tries = 0; old.size > 1 && tries < 20; tries++) old = await retainedUnder(broker.url, 'quackd/#');
    assert.deepEqual([...old.keys()], ['quackd/kitchen/state'], "only the other machine's topic is left under the old base");
    const now = await retainedUnder(broker.url, 'duckhouse/#');
    for (const topic of ours) assert.ok(now.has(topic.replace(/^quackd\//, 'duckhouse/')), `${topic} under the new base: ${[...now.keys()].join(' ')}`);
    assert.equal(now.get('duckhouse/bridge/state'), 'online');
    await stop(s);
  });
});
