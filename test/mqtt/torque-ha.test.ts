/**
 * Torque and Home Assistant's controls, end to end: `quackd serve` (in this process) holding a
 * real Microduck (the host firmware over a pty) and the simulator, its MQTT door on a real
 * mosquitto, driven as Home Assistant drives it, by publishing what each discovered entity says to
 * publish. Every discovery payload passes the validator written from HA's schemas. The torque
 * switch on the real duck waits at its gate (the gate's binary sensor holds the question), Deny
 * refuses it, Confirm lets it through and the answer is the firmware's read-back; torque off is
 * never gated; the select starts a duck (the user's own among them) and the goal text a goal; the
 * battery's charge is the firmware's voltage read as a 2S pack's.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { batteryPercent } from '../../src/bodies/microduck/jsonrpc/battery.js';
import type { MqttSection } from '../../src/mqtt/config.js';
import { mqttServiceDoor } from '../../src/mqtt/service-door.js';
import { createFakeProvider } from '../../src/pilot/providers/fake.js';
import type { RobotStatus } from '../../src/service/api.js';
import { startService, type Serving } from '../../src/service/lifecycle.js';
import { Rig, missingTools, waitFor } from '../bridge/rig.js';
import { writeDuck } from '../helpers/ducks.js';
import { discoveryProblems } from '../helpers/ha-discovery.js';
import { noMosquitto, startMosquitto, type Mosquitto } from '../helpers/mosquitto.js';
import { watch, type Received, type Watcher } from '../helpers/mqtt-watch.js';

type Payload = Record<string, unknown>;
const json = (m: Received): Payload => JSON.parse(m.payload) as Payload;

// One test with steps: the watcher and the service are made in it (an `after` made in a `before`
// hook runs as the hook ends, and would close them).
it('Home Assistant and MQTT: torque, a gate and its answers, ducks, a goal, the battery', { skip: missingTools() ?? noMosquitto }, async (t) => {
  // What was started, for the cleanup whatever step failed.
  const started: { rig?: Rig; broker?: Mosquitto; home?: string; serving?: Serving; w?: Watcher } = {};
  t.after(async () => {
    await started.w?.close();
    await started.serving?.stop('the test');
    await started.broker?.stop();
    await started.rig?.cleanup();
    if (started.home !== undefined) rmSync(started.home, { recursive: true, force: true });
  });
  const rig = (started.rig = await Rig.start(['--watchdog-ms', '5000']));
  const broker = (started.broker = await startMosquitto());
  const home = (started.home = mkdtempSync(join(tmpdir(), 'quackd-torque-ha-')));
  const w = (started.w = await watch(broker.url, ['homeassistant/#', 'quackd/#']));
  const bench = (): RobotStatus => serving.service.status('bench');
  /** A discovered entity's config, as HA keeps it. */
  const entity = (object: string): Payload => {
    const m = w.messages.findLast((r) => r.topic === `homeassistant/${object}/config` && r.payload !== '');
    assert.ok(m !== undefined, `no discovery of ${object}`);
    return json(m);
  };
  /** Publishes on `topic` as HA does (no transaction: HA adds none) and waits for the answer on `response` after it. */
  const publish = async (topic: string, payload: string, response: string): Promise<() => Promise<Payload>> => {
    const from = w.messages.length;
    await w.client.publishAsync(topic, payload, { qos: 1 });
    return async () => json(await w.waitFor((m, i = w.messages.indexOf(m)) => i >= from && m.topic === response, `an answer on ${response}`, 20_000));
  };
  const press = (button: Payload): Promise<unknown> => w.client.publishAsync(String(button['command_topic']), String(button['payload_press']), { qos: 1 });

  mkdirSync(join(home, 'ducks'));
  // A duck of the user's own that only the simulator can run (the real duck has no camera to scan with).
  writeDuck(join(home, 'ducks'), 'look-for-the-ball', 'robot: microduck:sim2d\nverbs: [search_scan, quack]\nbudgets: { steps: 3, llm_calls: 5, seconds: 30 }');
  const mqtt: MqttSection = { url: broker.url };
  writeFileSync(join(home, 'config.yaml'), `robots:\n  bench: { body: microduck:jsonrpc, port: ${JSON.stringify(rig.hostPath)} }\n  den: { body: microduck:sim2d }\nmqtt:\n  url: ${broker.url}\n`);
  const serving = (started.serving = await startService({ env: { QUACKD_HOME: home }, pilot: () => Promise.resolve(createFakeProvider()), doors: () => [mqttServiceDoor(mqtt, home)!] }));
  await waitFor('the link to open', () => bench().link === 'ok' && bench().battery_pct !== undefined, 10_000);
  await w.waitFor((m) => m.topic === 'homeassistant/text/quackd_den/goal/config', 'discovery');


  await t.test("publishes discovery HA accepts: the gate and its buttons, the ducks (the user's own too), the goal, the torque switch, the battery's charge", async () => {
    await new Promise((r) => setTimeout(r, 300));
    const configs = w.messages.filter((m) => m.topic.startsWith('homeassistant/') && m.topic.endsWith('/config') && m.payload !== '');
    assert.ok(configs.length >= 25, `${configs.length} configs`);
    for (const m of configs) assert.deepEqual(discoveryProblems(m.topic, m.payload), []);
    assert.deepEqual(entity('select/quackd_den/duck')['options'], ['look-for-the-ball', 'find-and-kick', 'hello-world', 'patrol']);
    assert.deepEqual(entity('select/quackd_bench/duck')['options'], ['hello-world', 'patrol']);
    for (const robot of ['bench', 'den']) {
      for (const object of ['binary_sensor/%/gate', 'button/%/gate_confirm', 'button/%/gate_deny', 'text/%/goal', 'switch/%/torque']) entity(object.replace('%', `quackd_${robot}`));
    }
    // The charge: the firmware's volts as a 2S LiPo's, the volts beside it.
    const battery = entity('sensor/quackd_bench/battery_level');
    assert.deepEqual([battery['device_class'], battery['unit_of_measurement'], battery['state_topic']], ['battery', '%', 'quackd/bench/state']);
    const state = json(await w.waitFor((m) => m.topic === 'quackd/bench/state' && json(m)['battery_pct'] !== undefined, 'the charge in the state'));
    assert.equal(state['battery_pct'], batteryPercent(Number(state['battery_v'])));
    assert.ok(Number(state['battery_pct']) > 0 && Number(state['battery_pct']) <= 100);
  });

  await t.test('the torque switch waits at its gate on the real duck: the binary sensor holds the question, Deny refuses it, torque stays off', async () => {
    const sw = entity('switch/quackd_bench/torque');
    const answer = await publish(String(sw['command_topic']), String(sw['payload_on']), 'quackd/bench/set/response');
    const waiting = json(await w.waitFor((m) => m.topic === 'quackd/bench/state' && json(m)['gate'] !== undefined, 'the gate in the state'));
    // What the binary sensor's attributes are: the question, its verb, its step, since when.
    const gate = waiting['gate'] as Payload;
    assert.equal(gate['question'], 'torque on');
    assert.equal(gate['verb'], 'torque');
    assert.equal(gate['step'], 1);
    assert.equal(entity('binary_sensor/quackd_bench/gate')['state_topic'], 'quackd/bench/state');
    await press(entity('button/quackd_bench/gate_deny'));
    const denied = await answer();
    assert.equal(denied['status'], 'error', JSON.stringify(denied));
    assert.match(String(denied['error']), /^torque on: failure — step 1 \(torque on\) was denied: a person said no$/);
    assert.equal(bench().torque, false);
    assert.equal(bench().gate, undefined);
  });

  await t.test('Confirm lets it through: the answer is the firmware read-back, and the state the switch reads follows', async () => {
    const sw = entity('switch/quackd_bench/torque');
    const answer = await publish(String(sw['command_topic']), String(sw['payload_on']), 'quackd/bench/set/response');
    await waitFor('the gate', () => bench().gate !== undefined, 10_000);
    await press(entity('button/quackd_bench/gate_confirm'));
    const on = await answer();
    assert.equal(on['status'], 'ok', JSON.stringify(on));
    assert.equal((on['data'] as Payload)['torque'], true);
    await w.waitFor((m) => m.topic === 'quackd/bench/state' && json(m)['torque'] === true, 'torque on in the state');
  });

  await t.test('torque off is never gated: bridge/request/torque answers with the read-back at once', async () => {
    const off = await w.ask('quackd/bridge/request/torque', { robot: 'bench', on: false }, 'quackd/bridge/response/torque');
    assert.equal(off['status'], 'ok', JSON.stringify(off));
    assert.equal((off['data'] as Payload)['torque'], false);
    await waitFor('torque off in the status', () => bench().torque === false);
  });

  await t.test('the select runs a duck of the user\'s own; the goal text starts a goal', async () => {
    const select = entity('select/quackd_den/duck');
    // HA renders the command template ({'run': value} | tojson): the JSON a person would send.
    assert.equal(select['command_template'], "{{ {'run': value} | tojson }}");
    const ran = await publish(String(select['command_topic']), JSON.stringify({ run: 'look-for-the-ball' }), 'quackd/den/set/response');
    assert.equal((await ran())['status'], 'ok');
    await w.waitFor((m) => m.topic === 'quackd/den/event' && json(m)['type'] === 'run_started' && json(m)['duck'] === 'look-for-the-ball', 'the duck started');
    await waitFor('the run to end', () => serving.service.status('den').run === undefined, 30_000);
    const text = entity('text/quackd_den/goal');
    assert.equal(text['command_template'], "{{ {'goal': value} | tojson }}");
    const goal = await publish(String(text['command_topic']), JSON.stringify({ goal: 'quack once for the cat' }), 'quackd/den/set/response');
    assert.equal((await goal())['status'], 'ok');
    await w.waitFor((m) => m.topic === 'quackd/den/event' && json(m)['type'] === 'run_started' && json(m)['duck'] === 'goal', 'the goal started');
  });
});
