/**
 * A gate waiting, as a dashboard reads it: `quackd serve` (the built bin in a child) on a real
 * mosquitto runs a duck whose quack needs a person's yes, started over MQTT as Home Assistant's
 * select starts one. The robot's retained state (and so the Gate waiting sensor's attributes, which
 * are its `gate`) and the `gate` event carry the question as data: `quack`, its verb and its step,
 * never the terminal's step line (`  1  quack`). The answer over MQTT lets the run go on.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { writeDuck } from '../helpers/ducks.js';
import { noMosquitto, startMosquitto } from '../helpers/mosquitto.js';
import { watch, type Received } from '../helpers/mqtt-watch.js';
import { serve } from '../helpers/serve.js';
import { tempDir } from '../helpers/tmp.js';

const json = (m: Received): Record<string, unknown> => JSON.parse(m.payload) as Record<string, unknown>;

it("a waiting gate's question reaches MQTT as data (question, verb, step), not as the terminal's step line", { skip: noMosquitto }, async () => {
  const broker = await startMosquitto();
  after(() => broker.stop());
  const home = tempDir('quackd-gate-question-');
  mkdirSync(join(home, 'ducks'));
  writeDuck(join(home, 'ducks'), 'careful-hello', 'robot: microduck:sim2d\nverbs: [quack]\nconfirm: [quack]\nbudgets: { steps: 3, llm_calls: 5, seconds: 60 }');
  const s = await serve(home, `robots:\n  den: { body: microduck:sim2d }\nmqtt:\n  url: ${broker.url}\n`);
  const w = await watch(broker.url, ['quackd/den/#', 'homeassistant/binary_sensor/quackd_den/gate/config']);
  await w.waitFor((m) => m.topic === 'quackd/den/state', "den's state");

  const started = await w.ask('quackd/den/set', { run: 'careful-hello' }, 'quackd/den/set/response');
  assert.equal(started['status'], 'ok', JSON.stringify(started));
  const waiting = await w.waitFor((m) => m.topic === 'quackd/den/state' && json(m)['gate'] !== undefined, 'a gate in the state', 20_000);
  const { since, ...gate } = json(waiting)['gate'] as Record<string, unknown>;
  assert.deepEqual(gate, { question: 'quack', verb: 'quack', step: 1 });
  assert.match(String(since), /^\d{4}-\d\d-\d\dT/);

  // Home Assistant's binary sensor takes its attributes from the state's gate, as it is.
  const sensor = json(await w.waitFor((m) => m.topic.endsWith('/gate/config'), "the gate sensor's config"));
  assert.equal(sensor['json_attributes_template'], '{{ value_json.gate | default({}) | tojson }}');

  const asked = await w.waitFor((m) => m.topic === 'quackd/den/event' && json(m)['type'] === 'gate' && json(m)['state'] === 'waiting', 'the gate event');
  const { at: _at, runId: _run, ...event } = json(asked);
  assert.deepEqual(event, { type: 'gate', question: 'quack', verb: 'quack', state: 'waiting', step: 1 });

  const answered = await w.ask('quackd/den/set', { confirm: 'quack', answer: true }, 'quackd/den/set/response');
  assert.equal(answered['status'], 'ok', JSON.stringify(answered));
  const yes = await w.waitFor((m) => m.topic === 'quackd/den/event' && json(m)['type'] === 'gate' && json(m)['state'] === 'answered', 'the answer event');
  assert.equal(json(yes)['question'], 'quack');
  assert.equal(json(yes)['allowed'], true);
  await w.waitFor((m) => m.topic === 'quackd/den/event' && json(m)['type'] === 'run_ended', 'the run to end', 30_000);
  const states = w.messages.filter((m) => m.topic === 'quackd/den/state').map((m) => m.payload);
  assert.ok(states.every((p) => !p.includes('  1  ')), `a step line in the state: ${states.join('\n')}`);

  s.child.kill('SIGTERM');
  assert.equal((await s.exited).code, 0);
});
