/**
 * A record written whole and renamed into place leaves its temporary file behind when quackd is
 * killed between the write and the rename (kill -9, a power cut): `quackd serve` (the built bin in
 * a child) removes such leftovers of its MQTT records (`mqtt-discovery.json.<pid>.tmp`, the
 * credentials' with their passwords) when it writes them again, and leaves the one of a live
 * process alone (another quackd may be writing it).
 */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort, noMosquitto, startMosquitto } from '../helpers/mosquitto.js';
import { served } from '../helpers/mqtt-retained.js';
import { serve } from '../helpers/serve.js';
import { tempDir } from '../helpers/tmp.js';

/** A pid no process has now, as a crashed quackd's is. */
function deadPid(): number {
  for (let pid = 999_999; ; pid++) {
    try {
      process.kill(pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') return pid;
    }
  }
}

/** Plants a crashed writer's and a live writer's (this test's own pid) temporary file of `record` in `home`. */
function leftovers(home: string, record: string): { readonly dead: string; readonly live: string } {
  const dead = join(home, `${record}.${deadPid()}.tmp`);
  const live = join(home, `${record}.${process.pid}.tmp`);
  writeFileSync(dead, '{"brokers": [');
  writeFileSync(live, '{"brokers": [');
  return { dead, live };
}

async function until(what: string, done: () => boolean): Promise<void> {
  for (const end = Date.now() + 15_000; !done() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
  assert.ok(done(), what);
}

describe("a crashed write's temporary file of an MQTT record", () => {
  it('a real mosquitto: the discovery record written at start removes a dead process’s mqtt-discovery.json.<pid>.tmp, not a live one’s', { skip: noMosquitto }, async () => {
    const broker = await startMosquitto();
    after(() => broker.stop());
    const home = tempDir('quackd-leftover-record-');
    const { dead, live } = leftovers(home, 'mqtt-discovery.json');
    const s = await serve(home, `robots:\n  den: { body: microduck:sim2d }\nmqtt:\n  url: ${broker.url}\n`);
    await served(broker.url, 'quackd/bridge/info');
    await until('the service wrote its discovery record', () => existsSync(join(home, 'mqtt-discovery.json')));
    assert.equal(existsSync(dead), false, `${dead} is left behind`);
    assert.equal(existsSync(live), true, `${live} (a live process's) was removed`);
    s.child.kill('SIGTERM');
    assert.equal((await s.exited).code, 0);
  });

  it('the embedded broker: its logins made at start remove a dead process’s mqtt-credentials.json.<pid>.tmp, not a live one’s', async () => {
    const port = await freePort();
    const home = tempDir('quackd-leftover-credentials-');
    const { dead, live } = leftovers(home, 'mqtt-credentials.json');
    const s = await serve(home, `robots:\n  den: { body: microduck:sim2d }\nmqtt:\n  port: ${port}\n`);
    assert.ok(existsSync(join(home, 'mqtt-credentials.json')), 'the service made its logins');
    assert.equal(existsSync(dead), false, `${dead} is left behind`);
    assert.equal(existsSync(live), true, `${live} (a live process's) was removed`);
    s.child.kill('SIGTERM');
    assert.equal((await s.exited).code, 0);
  });
});
