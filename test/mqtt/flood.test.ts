/**
 * A flood of commands on the embedded broker while a run goes on: 10,000 commands from one client
 * as fast as it can send them. The flooder is held to the rate limit and told so once; the run's
 * events all arrive, in order, none evicted by the flood's answers; a stop from another client is
 * carried out. (How fast the stop is, under the flood, is bench/mqtt-flood.ts's figure.)
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createMqttFrontDoor } from '../../src/mqtt/front-door.js';
import { readCredentials } from '../../src/mqtt/credentials.js';
import { resolveMqttSettings } from '../../src/mqtt/settings.js';
import { freePort } from '../helpers/mosquitto.js';
import { watch, type Login } from '../helpers/mqtt-watch.js';
import { ServiceDouble } from '../helpers/service-double.js';
import { tempDir } from '../helpers/tmp.js';

const FLOOD = 10_000;
const STEPS = 30;

test(`${FLOOD.toLocaleString('en')} commands from one client: the flooder is rate-limited and told so; a concurrent run's events all arrive; a stop from another client is carried out`, async () => {
  const port = await freePort();
  const api = new ServiceDouble([
    { robot: 'kitchen', key: 'microduck:sim2d' },
    { robot: 'hall', key: 'microduck:sim2d' },
  ]);
  const settings = resolveMqttSettings({ port, homeassistant: { enabled: false }, users: { homeassistant: { may: ['command', 'confirm'] }, flooder: { may: ['command'] } } }, '/');
  assert.ok(settings !== undefined);
  const home = tempDir('quackd-flood-');
  const door = createMqttFrontDoor(settings, api, { dataDir: home });
  after(() => door.stop());
  await door.start();
  const url = `mqtt://127.0.0.1:${port}`;
  const login = (user: string): Login => ({ username: user, password: readCredentials(home)?.get(user) ?? '' });
  while (door.status().state !== 'online') await new Promise((r) => setTimeout(r, 10));

  const ha = await watch(url, ['quackd/kitchen/event', 'quackd/kitchen/set/response'], login('homeassistant'));
  const flooder = await watch(url, ['quackd/hall/set/response'], login('flooder'));
  // The run is under way before the flood, and goes on through it.
  await api.run('kitchen', { duck: 'hello-world' });
  await ha.waitFor((m) => m.payload.includes('"type":"run_started"'), 'run_started');

  const floodStart = Date.now();
  const flood = (async () => {
    for (let i = 0; i < FLOOD; i++) {
      flooder.client.publish('quackd/hall/set', '{"run":"hello-world"}');
      // Hand the socket a batch at a time, as a busy client's event loop does.
      if (i % 500 === 499) await new Promise((r) => setImmediate(r));
    }
  })();
  for (let i = 0; i < STEPS; i++) {
    api.step('kitchen');
    if (i === STEPS / 2) {
      api.gate('kitchen', 'quack');
      api.answerGate('kitchen', true, 'quack', 'person');
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  await flood;
  const stop = await ha.ask('quackd/kitchen/set', { stop: true }, 'quackd/kitchen/set/response');
  assert.equal(stop['status'], 'ok', JSON.stringify(stop));
  await ha.waitFor((m) => m.payload.includes('"type":"run_ended"'), 'run_ended', 30_000);
  const events = ha.messages.filter((m) => m.topic === 'quackd/kitchen/event').map((m) => JSON.parse(m.payload) as { type: string; step?: number; state?: string });
  assert.deepEqual(
    events.map((e) => (e.type === 'step' ? `step ${e.step}` : e.type === 'gate' ? `gate ${e.state}` : e.type)),
    ['run_started', ...Array.from({ length: STEPS }, (_, i) => `step ${i + 1}`).flatMap((s, i) => (i === STEPS / 2 ? [s, 'gate waiting', 'gate answered'] : [s])), 'run_ended'],
  );
  // Held to the limit: its first burst ran (one run on hall; the others found it busy), and it was told once a second at most.
  const answers = await flooder.waitFor((m) => m.payload.includes('rate limit: at most 20 commands a second'), 'the rate-limit refusal');
  assert.match(answers.payload, /"status":"error"/);
  // The broker goes on reading the flood (paced) until now, so the limit is reckoned to now: the
  // time measured when the run ended was a moment short of it under load.
  const carried = api.calls.filter((c) => c.method === 'run' && c.robot === 'hall').length;
  const seconds = (Date.now() - floodStart) / 1000;
  assert.ok(carried <= 40 + Math.ceil(20 * seconds), `${carried} of the flood's commands carried out in ${seconds.toFixed(1)} s: past the limit`);
  assert.equal(api.calls.filter((c) => c.method === 'stop').length, 1);
});
