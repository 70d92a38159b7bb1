/**
 * What `quackd serve` (the built bin in a child) left retained at an MQTT broker when the user
 * points it at another (mqtt.url in config.yaml), on two real mosquittos: it clears nothing at the
 * new broker that it never had there, and says which broker still holds its topics; pointed back,
 * it clears there what it no longer publishes, and only that. A record of the layout before brokers
 * were told apart is still used after an upgrade; one it cannot read is one line in the log, and
 * serve goes on and writes a whole one.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { noMosquitto, startMosquitto } from '../helpers/mosquitto.js';
import { otherMachine, retainedUnder, retainedUntil, served } from '../helpers/mqtt-retained.js';
import { watch } from '../helpers/mqtt-watch.js';
import { serve, type Serving } from '../helpers/serve.js';
import { tempDir } from '../helpers/tmp.js';

async function stop(s: Serving): Promise<void> {
  s.child.kill('SIGTERM');
  assert.equal((await s.exited).code, 0);
}

const lines = (s: Serving, text: string) => s.stderr().split('\n').filter((l) => l.includes(text));
const robots = (names: string[]) => `robots:\n${names.map((n) => `  ${n}: { body: microduck:sim2d }\n`).join('')}`;

describe('what quackd left retained at an MQTT broker it was moved away from', { skip: noMosquitto }, () => {
  it('pointed at another broker, it clears nothing there it never had and says which broker keeps its topics; pointed back, it clears them there', async () => {
    const a = await startMosquitto();
    after(() => a.stop());
    const b = await startMosquitto();
    after(() => b.stop());
    await otherMachine(a.url);
    const home = tempDir('quackd-broker-moved-');
    let s = await serve(home, `${robots(['den', 'hall'])}mqtt:\n  url: ${a.url}\n`);
    await served(a.url, 'quackd/bridge/info');
    await stop(s);
    const oldConfigs = [...(await retainedUnder(a.url, 'homeassistant/#')).keys()].filter((t) => t.includes('/quackd_'));
    assert.ok(oldConfigs.filter((t) => t.includes('/quackd_hall/')).length >= 3, `hall announced at the first broker: ${oldConfigs.join(' ')}`);

    // The user moves quackd to broker b, under another base topic, and drops hall from the fleet.
    const atB = await watch(b.url, ['#']);
    s = await serve(home, `${robots(['den'])}mqtt:\n  url: ${b.url}\n  base_topic: duckhouse\n`);
    await served(b.url, 'duckhouse/bridge/devices');
    await new Promise((r) => setTimeout(r, 500));
    await atB.close();
    const cleared = atB.messages.filter((m) => m.payload === '').map((m) => m.topic);
    assert.deepEqual(cleared, [], 'no clearing at a broker that never had those topics');
    assert.equal(lines(s, `retained topics quackd left at ${a.url} stay there`).length, 1, `one line naming the old broker:\n${s.stderr()}`);
    await stop(s);
    assert.ok((await retainedUnder(a.url, 'quackd/#')).has('quackd/hall/state'), 'quackd cannot reach the old broker: what it left there stays until it is back');

    // Back at broker a, as on b: what it left there under the old base is cleared, and only that.
    s = await serve(home, `${robots(['den'])}mqtt:\n  url: ${a.url}\n  base_topic: duckhouse\n`);
    await served(a.url, 'duckhouse/bridge/devices');
    const left = await retainedUntil(a.url, 'quackd/#', (held) => held.size === 1);
    assert.deepEqual([...left.keys()], ['quackd/kitchen/state'], "only the other machine's topic is left under the old base at the old broker");
    assert.equal((await retainedUnder(a.url, 'duckhouse/#')).get('duckhouse/den/availability'), 'online');
    const configs = await retainedUntil(a.url, 'homeassistant/#', (held) => oldConfigs.every((t) => !held.has(t)));
    assert.deepEqual(oldConfigs.filter((t) => configs.has(t)), [], "the old base's entities removed from the old broker's Home Assistant");
    assert.ok([...configs.keys()].some((t) => t.includes('/duckhouse_den/')), 'den announced under the new base');
    assert.equal(lines(s, `retained topics quackd left at ${b.url} stay there`).length, 1, `one line naming the broker it left now:\n${s.stderr()}`);
    await stop(s);
  });

  it("a record of the first layout (one broker's lists, before they were keyed by broker) is still cleared from after an upgrade", async () => {
    const broker = await startMosquitto();
    after(() => broker.stop());
    const home = tempDir('quackd-record-old-');
    // What an earlier quackd left and wrote down, in the layout it wrote.
    const before = await watch(broker.url, []);
    for (const topic of ['quackd/bridge/state', 'quackd/den/state', 'quackd/den/availability']) await before.client.publishAsync(topic, 'offline', { qos: 1, retain: true });
    await before.close();
    const path = join(home, 'mqtt-discovery.json');
    writeFileSync(path, JSON.stringify({ published: [], gone: [], retained: { broker: broker.url, topics: ['quackd/bridge/state', 'quackd/den/state', 'quackd/den/availability'] } }));
    const s = await serve(home, `${robots(['den'])}mqtt:\n  url: ${broker.url}\n  base_topic: duckhouse\n`);
    await served(broker.url, 'duckhouse/bridge/devices');
    assert.deepEqual([...(await retainedUntil(broker.url, 'quackd/#', (held) => held.size === 0)).keys()], [], 'what the record listed is cleared');
    await stop(s);
    const record = JSON.parse(readFileSync(path, 'utf8')) as { brokers: { broker: string }[] };
    assert.deepEqual(record.brokers.map((b) => b.broker), [broker.url], 'written back keyed by broker');
  });

  it('a record it cannot read (cut short) is one line in the log; serve goes on and writes a whole one', async () => {
    const broker = await startMosquitto();
    after(() => broker.stop());
    const home = tempDir('quackd-record-bad-');
    const path = join(home, 'mqtt-discovery.json');
    writeFileSync(path, `{"brokers": [{"broker": "${broker.url}", "published": ["homeassistant/sensor/quackd_den/bat`);
    let s = await serve(home, `${robots(['den'])}mqtt:\n  url: ${broker.url}\n`);
    await served(broker.url, 'quackd/bridge/info');
    assert.equal(lines(s, 'is unreadable').length, 1, s.stderr());
    assert.match(lines(s, 'is unreadable')[0] ?? '', /mqtt-discovery\.json is unreadable \(not JSON: cut short\?\)/);
    await stop(s);
    const record = JSON.parse(readFileSync(path, 'utf8')) as { brokers: { broker: string; retained: string[] }[] };
    assert.ok(record.brokers.find((b) => b.broker === broker.url)?.retained.includes('quackd/den/state'), readFileSync(path, 'utf8'));

    // JSON of another shape altogether: nothing of it is taken, and nothing breaks.
    writeFileSync(path, '{"brokers": [null, 7, {"broker": 7}, {"broker": "mqtt://x", "retained": "quackd/#"}], "retained": {"broker": 1}}');
    s = await serve(home, `${robots(['den'])}mqtt:\n  url: ${broker.url}\n`);
    await served(broker.url, 'quackd/bridge/info');
    await stop(s);
  });
});
