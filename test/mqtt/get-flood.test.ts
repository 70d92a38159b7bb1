/**
 * `<robot>/get` asked in a loop (a dashboard gone wrong, a script without a sleep): `quackd serve`
 * (the built bin in a child) on a real mosquitto, whose clients quackd cannot rate-limit by login,
 * is flooded with gets. The robot's state goes out at most state_hz times a second (5 here), the
 * gets that came while one publish was held back answered together by it, the last get too; gets
 * for a robot quackd does not know are said on bridge/logging at most once a second.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { noMosquitto, startMosquitto } from '../helpers/mosquitto.js';
import { watch, type Received } from '../helpers/mqtt-watch.js';
import { serve } from '../helpers/serve.js';
import { tempDir } from '../helpers/tmp.js';

const FLOOD = 2000;
const STATE_HZ = 5;
const json = (m: Received): Record<string, unknown> => JSON.parse(m.payload) as Record<string, unknown>;

it(`${FLOOD} gets as fast as a client can send them: the state goes out at most state_hz times a second, the last get answered; unknown robots said once a second`, { skip: noMosquitto }, async () => {
  const broker = await startMosquitto();
  after(() => broker.stop());
  const s = await serve(tempDir('quackd-get-flood-'), `robots:\n  den: { body: microduck:sim2d }\nmqtt:\n  url: ${broker.url}\n  state_hz: ${STATE_HZ}\n`);
  const w = await watch(broker.url, ['quackd/den/state', 'quackd/bridge/logging']);
  await w.waitFor((m) => m.topic === 'quackd/den/state', "den's retained state");
  // Nothing moves an idle simulator: what is published from here on is the gets' doing.
  await new Promise((r) => setTimeout(r, 500));
  const states = () => w.messages.filter((m) => m.topic === 'quackd/den/state').length;
  const unknown = () => w.messages.filter((m) => m.topic === 'quackd/bridge/logging' && /get for an unknown robot/.test(m.payload));

  const before = states();
  const start = performance.now();
  for (let i = 0; i < FLOOD; i++) {
    w.client.publish('quackd/den/get', '{"state": ""}', { qos: 0 });
    w.client.publish('quackd/garage/get', '', { qos: 0 });
  }
  // Acknowledged in order after the flood: the broker has all of it by now.
  await w.client.publishAsync('quackd/den/get', '', { qos: 1 });
  const lastAsked = w.messages.length;
  const flooded = performance.now() - start;
  // The last get is answered, by the publish held back for it if not at once.
  const answer = await w.waitFor((m) => w.messages.indexOf(m) >= lastAsked && m.topic === 'quackd/den/state', 'an answer to the last get', 5000);
  assert.equal(json(answer)['robot'], 'den');
  await new Promise((r) => setTimeout(r, 1000));
  const elapsed = performance.now() - start;

  const published = states() - before;
  const bound = Math.ceil((elapsed / 1000) * STATE_HZ) + 1;
  console.log(`# ${2 * FLOOD + 1} gets in ${flooded.toFixed(0)} ms: den's state published ${published} times in ${elapsed.toFixed(0)} ms (at most ${bound}); ${unknown().length} unknown-robot lines`);
  assert.ok(published >= 1 && published <= bound, `den's state published ${published} times in ${elapsed.toFixed(0)} ms, over ${STATE_HZ} a second`);
  const lines = unknown();
  assert.ok(lines.length >= 1 && lines.length <= Math.ceil(elapsed / 1000) + 1, `${lines.length} unknown-robot lines in ${elapsed.toFixed(0)} ms`);
  assert.deepEqual(json(lines[0] ?? { topic: '', payload: '{}', retain: false }), { level: 'warning', message: 'mqtt: get for an unknown robot; known: den robot=garage', namespace: 'mqtt' });

  s.child.kill('SIGTERM');
  assert.equal((await s.exited).code, 0);
});
