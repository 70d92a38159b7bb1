/**
 * 10,000 random payloads on a robot's `set` topic (random bytes, random JSON, commands with wrong
 * types and stray keys, and some good ones), through the embedded broker: the door never crashes,
 * answers every one, and the service is only ever called with well-formed arguments, only for
 * payloads that were answered by the service itself.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import fc from 'fast-check';
import { createMqttFrontDoor } from '../../src/mqtt/front-door.js';
import { resolveMqttSettings } from '../../src/mqtt/settings.js';
import { readCredentials } from '../../src/mqtt/credentials.js';
import { tempDir } from '../helpers/tmp.js';
import { freePort } from '../helpers/mosquitto.js';
import { watch } from '../helpers/mqtt-watch.js';
import { ServiceDouble } from '../helpers/service-double.js';

const PAYLOADS = 10_000;
const BATCH = 250;

const command = fc.record(
  {
    run: fc.oneof(fc.constantFrom('hello-world', 'find-and-kick', '../x', 'a.duck', ''), fc.jsonValue()),
    seed: fc.oneof(fc.integer(), fc.double(), fc.jsonValue()),
    stop: fc.oneof(fc.constant(true), fc.jsonValue()),
    confirm: fc.oneof(fc.constantFrom('kick', 'walk', 'KICK', 'a b'), fc.jsonValue()),
    answer: fc.oneof(fc.boolean(), fc.jsonValue()),
    torque: fc.oneof(fc.boolean(), fc.jsonValue()),
    transaction: fc.oneof(fc.string(), fc.integer(), fc.jsonValue()),
    extra: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

const payload = fc.oneof(
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)) },
  { weight: 2, arbitrary: fc.json().map((j) => Buffer.from(j)) },
  { weight: 5, arbitrary: command.map((c) => Buffer.from(JSON.stringify(c))) },
  { weight: 1, arbitrary: fc.constantFrom('{"stop": true}', '{"run": "hello-world", "seed": 7}', '{"confirm": "kick", "answer": true}', '{"torque": true}').map((s) => Buffer.from(s)) },
  { weight: 1, arbitrary: fc.string({ minLength: 5000, maxLength: 6000 }).map((s) => Buffer.from(JSON.stringify({ run: s }))) },
);

test(`fuzz: ${PAYLOADS} random payloads on <robot>/set`, async (t) => {
  const port = await freePort();
  const api = new ServiceDouble([{ robot: 'kitchen', key: 'microduck:sim2d' }]);
  const settings = resolveMqttSettings({ port, users: { ha: { may: ['command', 'confirm'] } } }, '/');
  assert.ok(settings !== undefined);
  const home = tempDir('quackd-fuzz-');
  // Every payload answered: this is about parsing, not the rate limit (test/mqtt/flood.test.ts).
  const door = createMqttFrontDoor(settings, api, { dataDir: home, commandRate: { perSecond: 1e6, burst: 1e6 } });
  after(() => door.stop());
  await door.start();
  const w = await watch(`mqtt://127.0.0.1:${port}`, ['quackd/kitchen/set/response'], { username: 'ha', password: readCredentials(home)?.get('ha') ?? '' });
  const samples = fc.sample(payload, { numRuns: PAYLOADS, seed: 20_240_611 });
  const t0 = performance.now();
  for (let i = 0; i < samples.length; i += BATCH) {
    await Promise.all(samples.slice(i, i + BATCH).map((p) => w.client.publishAsync('quackd/kitchen/set', p, { qos: 1 })));
    const want = Math.min(i + BATCH, samples.length);
    await w.waitFor(() => w.messages.length >= want, `${want} answers`, 20_000);
  }
  t.diagnostic(`${PAYLOADS} payloads answered in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(w.messages.length, PAYLOADS, 'exactly one answer per payload');
  assert.equal(door.status().state, 'online');
  assert.equal(door.status().dropped, 0);

  const answers = w.messages.map((m) => JSON.parse(m.payload) as { status: string; error?: string; data: unknown });
  for (const a of answers) {
    assert.ok(a.status === 'ok' || a.status === 'error');
    if (a.status === 'error') {
      assert.equal(typeof a.error, 'string');
      assert.ok(!(a.error ?? '').includes('\n') && (a.error ?? '').length <= 300, a.error);
      assert.deepEqual(a.data, {});
    }
  }
  // What the service itself refused (busy, unknown duck, no gate waiting) reached it; nothing else did.
  const byService = answers.filter((a) => a.status === 'ok' || /already running|no duck named|no confirmation is waiting/.test(a.error ?? '')).length;
  assert.equal(api.calls.length, byService);
  assert.ok(api.calls.length > 0, 'some good commands reached the service');
  for (const c of api.calls) {
    assert.equal(c.robot, 'kitchen');
    if (c.method === 'run') {
      assert.match(c.request.duck, /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/);
      assert.ok(c.request.seed === undefined || (Number.isInteger(c.request.seed) && c.request.seed >= 0), String(c.request.seed));
      assert.deepEqual(Object.keys(c.request).filter((k) => k !== 'duck' && k !== 'seed'), []);
    } else if (c.method === 'answerGate') {
      assert.equal(typeof c.answer, 'boolean');
      assert.match(c.verb ?? '', /^[a-z_][a-z0-9_]*$/);
    } else if (c.method === 'torque') {
      assert.equal(typeof c.on, 'boolean');
    }
  }
  t.diagnostic(`${api.calls.length} calls reached the service; ${answers.filter((a) => a.status === 'error').length} payloads refused`);
});
