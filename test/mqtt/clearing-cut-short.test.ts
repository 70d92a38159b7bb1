/**
 * A clearing cut short: `quackd serve` (the built bin in a child) restarted under another
 * mqtt.base_topic clears what it left under the old one on a real mosquitto, and the link drops as
 * the first of those clearings goes out (a relay cuts it there, as a broker restarting mid-clear
 * would). The clearings are finished when the link is back, not at the next start, and another
 * machine's retained topic under the same base stays.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { noMosquitto, startMosquitto } from '../helpers/mosquitto.js';
import { cutLink } from '../helpers/mqtt-cut.js';
import { otherMachine, retainedUnder, retainedUntil, served } from '../helpers/mqtt-retained.js';
import { serve } from '../helpers/serve.js';
import { tempDir } from '../helpers/tmp.js';

describe('a clearing of old retained topics cut short by the link', { skip: noMosquitto }, () => {
  it('is finished when the link is back, not at the next start', async () => {
    const broker = await startMosquitto();
    after(() => broker.stop());
    await otherMachine(broker.url);
    const home = tempDir('quackd-clear-cut-');
    // quackd's broker is the relay's address throughout, as a broker is one address to quackd.
    const link = await cutLink(broker.port);
    const config = (base: string) => `robots:\n  den: { body: microduck:sim2d }\n  hall: { body: microduck:sim2d }\nmqtt:\n  url: ${link.url}\n  base_topic: ${base}\n`;
    let s = await serve(home, config('quackd'));
    await served(broker.url, 'quackd/bridge/info');
    s.child.kill('SIGTERM');
    assert.equal((await s.exited).code, 0);
    const ours = ['quackd/bridge/state', 'quackd/bridge/devices', 'quackd/bridge/info', 'quackd/den/state', 'quackd/den/availability', 'quackd/hall/state', 'quackd/hall/availability'];
    assert.deepEqual([...(await retainedUnder(broker.url, 'quackd/#')).keys()].sort(), [...ours, 'quackd/kitchen/state'].sort(), 'what the first start left');

    // Under another base topic, through a link that drops as the first clearing of the old base goes out.
    link.arm((topic) => topic.startsWith('quackd/'));
    s = await serve(home, config('duckhouse'));
    const reconnected = () => s.stderr().includes('reconnected to the MQTT broker');
    for (const end = Date.now() + 15_000; !reconnected() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
    assert.ok(link.cut()?.startsWith('quackd/'), `the link was cut at a clearing: ${String(link.cut())}`);
    assert.ok(reconnected(), `quackd reconnected:\n${s.stderr()}`);
    const old = await retainedUntil(broker.url, 'quackd/#', (held) => held.size === 1);
    assert.deepEqual([...old.keys()], ['quackd/kitchen/state'], 'every clearing finished once the link was back');
    s.child.kill('SIGTERM');
    assert.equal((await s.exited).code, 0);
  });
});
