/**
 * The MQTT front door against a real mosquitto: retained state a late subscriber gets, events of
 * a run, each command's round trip and the refusals, the state rate limit, and offline at stop.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { mqttServiceDoor } from '../../src/mqtt/service-door.js';
import type { FrontDoor } from '../../src/service/front-door.js';
import { createMqttFrontDoor, type MqttDoorOptions, type MqttFrontDoor } from '../../src/mqtt/front-door.js';
import { resolveMqttSettings } from '../../src/mqtt/settings.js';
import type { MqttSection } from '../../src/mqtt/config.js';
import { noMosquitto, startMosquitto, type Mosquitto } from '../helpers/mosquitto.js';
import { watch } from '../helpers/mqtt-watch.js';
import { ServiceDouble } from '../helpers/service-double.js';

let broker: Mosquitto;
let bases = 0;

interface Rig {
  readonly base: string;
  readonly api: ServiceDouble;
  readonly door: MqttFrontDoor;
}

async function rig(section: Exclude<MqttSection, boolean> = {}, options: MqttDoorOptions = {}): Promise<Rig> {
  const base = `qt${process.pid}_${++bases}`;
  const api = new ServiceDouble([
    { robot: 'kitchen', key: 'microduck:sim2d' },
    { robot: 'hall', key: 'microduck:jsonrpc' },
  ]);
  const settings = resolveMqttSettings({ url: broker.url, base_topic: base, ...section }, '/');
  assert.ok(settings !== undefined);
  const door = createMqttFrontDoor(settings, api, { reconnectMinMs: 50, reconnectMaxMs: 200, ...options });
  after(() => door.stop());
  await door.start();
  return { base, api, door };
}

async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(ok());
}

const json = (payload: string) => JSON.parse(payload) as Record<string, unknown>;

describe('MQTT front door (mosquitto)', { skip: noMosquitto }, () => {
  before(async () => {
    broker = await startMosquitto();
  });
  after(() => broker.stop());

  test('bridge state, robot state and availability are retained: a late subscriber gets them', async () => {
    const { base, api } = await rig();
    // The first subscriber proves the door has published; the second arrives afterwards.
    const first = await watch(broker.url, [`${base}/hall/state`]);
    await first.waitFor((m) => m.topic === `${base}/hall/state`, 'hall state');
    api.update('kitchen', { activity: 'fallen' });
    await first.close();
    const late = await watch(broker.url, [`${base}/bridge/state`, `${base}/+/state`, `${base}/+/availability`]);
    const bridge = await late.waitFor((m) => m.topic === `${base}/bridge/state`, 'bridge state');
    assert.equal(bridge.payload, 'online');
    assert.equal(bridge.retain, true);
    const kitchen = await late.waitFor((m) => m.topic === `${base}/kitchen/state` && json(m.payload)['activity'] === 'fallen', 'kitchen fallen');
    assert.equal(kitchen.retain, true);
    assert.equal(json(kitchen.payload)['key'], 'microduck:sim2d');
    const avail = await late.waitFor((m) => m.topic === `${base}/hall/availability`, 'hall availability');
    assert.equal(avail.payload, 'online');
    assert.equal(avail.retain, true);
  });

  test('a run over MQTT: set run, its events, a gate confirmed, then stop', async () => {
    const { base, api } = await rig();
    const w = await watch(broker.url, [`${base}/kitchen/#`]);
    const started = await w.ask(`${base}/kitchen/set`, { run: 'find-and-kick', seed: 3 }, `${base}/kitchen/set/response`);
    assert.equal(started['status'], 'ok', JSON.stringify(started));
    assert.equal((started['data'] as Record<string, unknown>)['runId'], 'run-1');
    assert.deepEqual(api.calls[0], { method: 'run', robot: 'kitchen', request: { duck: 'find-and-kick', seed: 3 } });
    // mosquitto does not say which client published: the run is said to come through it.
    assert.deepEqual(api.askers[0], { method: 'run', by: `mqtt client via ${broker.url}` });
    const begun = await w.waitFor((m) => m.topic === `${base}/kitchen/event` && json(m.payload)['type'] === 'run_started', 'run_started event');
    assert.equal(json(begun.payload)['by'], `mqtt client via ${broker.url}`);
    api.step('kitchen');
    const step = await w.waitFor((m) => m.topic === `${base}/kitchen/event` && json(m.payload)['type'] === 'step', 'step event');
    assert.equal(json(step.payload)['verb'], 'walk');
    api.gate('kitchen', 'kick');
    await w.waitFor((m) => m.topic === `${base}/kitchen/event` && json(m.payload)['type'] === 'gate' && json(m.payload)['state'] === 'waiting', 'gate waiting');
    const wrongVerb = await w.ask(`${base}/kitchen/set`, { confirm: 'walk', answer: true }, `${base}/kitchen/set/response`);
    assert.equal(wrongVerb['status'], 'error');
    const confirmed = await w.ask(`${base}/kitchen/set`, { confirm: 'kick', answer: true }, `${base}/kitchen/set/response`);
    assert.equal(confirmed['status'], 'ok', JSON.stringify(confirmed));
    const busy = await w.ask(`${base}/kitchen/set`, { run: 'hello-world' }, `${base}/kitchen/set/response`);
    assert.equal(busy['status'], 'error');
    assert.match(String(busy['error']), /already running/);
    const stopped = await w.ask(`${base}/kitchen/set`, { stop: true }, `${base}/kitchen/set/response`);
    assert.equal(stopped['status'], 'ok');
    const ended = await w.waitFor((m) => m.topic === `${base}/kitchen/event` && json(m.payload)['type'] === 'run_ended', 'run_ended event');
    assert.equal((json(ended.payload)['outcome'] as Record<string, unknown>)['status'], 'interrupted');
    await w.waitFor((m) => m.topic === `${base}/kitchen/state` && (json(m.payload)['lastOutcome'] as Record<string, unknown> | undefined)?.['status'] === 'interrupted', 'state with the outcome');
    const torque = await w.ask(`${base}/kitchen/set`, { torque: false }, `${base}/kitchen/set/response`);
    assert.equal(torque['status'], 'ok');
    assert.deepEqual(
      api.calls.map((c) => c.method),
      ['run', 'answerGate', 'answerGate', 'run', 'stop', 'torque'],
    );
  });

  test('bridge requests answer on bridge/response/<cmd> with the transaction echoed', async () => {
    const { base, api } = await rig();
    const w = await watch(broker.url, [`${base}/bridge/response/+`]);
    const ask = (cmd: string, payload: Record<string, unknown>) => w.ask(`${base}/bridge/request/${cmd}`, payload, `${base}/bridge/response/${cmd}`);
    const status = await ask('status', {});
    assert.equal(status['status'], 'ok');
    assert.deepEqual(
      ((status['data'] as { robots: { robot: string }[] }).robots ?? []).map((r) => r.robot),
      ['kitchen', 'hall'],
    );
    const one = await ask('status', { robot: 'hall' });
    assert.equal((one['data'] as Record<string, unknown>)['key'], 'microduck:jsonrpc');
    const health = await ask('health', {});
    assert.equal(((health['data'] as { checks: unknown[] }).checks ?? []).length, 1);
    const run = await ask('run', { robot: 'hall', duck: 'hello-world' });
    assert.equal(run['status'], 'ok', JSON.stringify(run));
    api.gate('hall', 'quack');
    const confirm = await ask('confirm', { robot: 'hall', answer: false });
    assert.equal(confirm['status'], 'ok', JSON.stringify(confirm));
    const torque = await ask('torque', { robot: 'hall', on: true });
    assert.equal(torque['status'], 'ok');
    const stopAll = await ask('stop', {});
    assert.equal(stopAll['status'], 'ok');
    assert.deepEqual(api.calls.at(-1), { method: 'stop' });
    // An empty payload is an empty request: stop everything.
    await w.client.publishAsync(`${base}/bridge/request/stop`, '', { qos: 1 });
    await w.waitFor((m) => m.topic === `${base}/bridge/response/stop` && json(m.payload)['status'] === 'ok' && json(m.payload)['transaction'] === undefined, 'stop without payload');
    // A stop a body did not confirm (its link down) is no ok: the dashboard is told which and why, as the CLI exits 3.
    api.unconfirming.set('hall', 'serial link to /dev/ttyACM0 is down: torque off not sent');
    const unconfirmed = await ask('stop', {});
    assert.deepEqual([unconfirmed['status'], unconfirmed['error']], ['error', 'hall: its body did not confirm the stop: serial link to /dev/ttyACM0 is down: torque off not sent']);
    const hall = await ask('stop', { robot: 'hall' });
    assert.equal(hall['status'], 'error');
    assert.deepEqual(api.calls.at(-1), { method: 'stop', robot: 'hall' }, 'the stop was carried out all the same');
  });

  test('bad commands are answered with a one-line error, naming the command once, and call nothing', async () => {
    const { base, api } = await rig();
    const w = await watch(broker.url, [`${base}/+/set/response`, `${base}/bridge/response/+`]);
    const set = (robot: string, payload: Record<string, unknown>) => w.ask(`${base}/${robot}/set`, payload, `${base}/${robot}/set/response`);
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['kitchen', { dance: true }, /unknown command: expected one of run, goal, stop, confirm, torque/],
      ['kitchen', { run: 'hello-world', stop: true }, /one command at a time/],
      ['kitchen', { run: '../../etc/passwd' }, /^run: a duck name \(letters, digits, - and _\), never a path$/],
      ['kitchen', { run: 'x.duck' }, /never a path/],
      ['kitchen', { run: 42 }, /^run: Invalid input: expected string, received number$/],
      ['kitchen', { run: 'hello-world', seed: -1 }, /^run: seed: /],
      ['kitchen', { run: 'hello-world', seed: 1.5 }, /seed/],
      ['kitchen', { stop: false }, /^stop: expected true$/],
      ['kitchen', { stop: true, force: 1 }, /unknown key "force"/],
      ['kitchen', { confirm: 'kick' }, /answer/],
      ['kitchen', { confirm: 'kick', answer: 'yes' }, /^confirm: answer: Invalid input: expected boolean, received string$/],
      ['kitchen', { torque: 'on' }, /^torque: Invalid input: expected boolean, received string$/],
      ['kitchen', { goal: '   ' }, /^goal: a goal in words$/],
      ['kitchen', { goal: 'x'.repeat(1001) }, /goal: /],
      ['garage', { stop: true }, /unknown robot "garage"/],
      // A key the asker sent is quoted whole (escaped), never cut at a newline.
      ['kitchen', { stop: true, 'force\nnow': 1 }, /^stop: unknown key "force\\x0anow"$/],
      ['kitchen', { run: 'no-such-duck' }, /no duck named/],
    ];
    for (const [robot, payload, expected] of cases) {
      const a = await set(robot, payload);
      assert.equal(a['status'], 'error', `${JSON.stringify(payload)} → ${JSON.stringify(a)}`);
      assert.match(String(a['error']), expected, JSON.stringify(payload));
      assert.ok(!String(a['error']).includes('\n'));
      assert.deepEqual(a['data'], {});
    }
    // Only the unknown duck reached the service (it is the service that knows its ducks).
    assert.deepEqual(api.calls, [{ method: 'run', robot: 'kitchen', request: { duck: 'no-such-duck' } }]);
    for (const raw of ['not json', '[1,2]', '"stop"', 'null', Buffer.from([0xff, 0xfe, 0x00])]) {
      const before = w.messages.length;
      await w.client.publishAsync(`${base}/kitchen/set`, raw, { qos: 1 });
      const m = await w.waitFor((r) => w.messages.indexOf(r) >= before && r.topic === `${base}/kitchen/set/response`, `an answer to ${String(raw)}`);
      assert.equal(json(m.payload)['status'], 'error');
    }
    const unknown = await w.ask(`${base}/bridge/request/dance`, {}, `${base}/bridge/response/dance`);
    assert.match(String(unknown['error']), /unknown request "dance"/);
    const noRobot = await w.ask(`${base}/bridge/request/run`, { duck: 'hello-world' }, `${base}/bridge/response/run`);
    assert.match(String(noRobot['error']), /robot/);
    const badTx = await (async () => {
      await w.client.publishAsync(`${base}/kitchen/set`, JSON.stringify({ stop: true, transaction: { a: 1 } }), { qos: 1 });
      return w.waitFor((m) => m.topic === `${base}/kitchen/set/response` && String(json(m.payload)['error']).startsWith('transaction'), 'bad transaction');
    })();
    assert.equal(json(badTx.payload)['status'], 'error');
    assert.equal(api.calls.length, 1);
  });

  test('state is rate-limited per robot: a burst is coalesced and ends on the newest', async () => {
    const { base, api } = await rig({ state_hz: 5 });
    const w = await watch(broker.url, [`${base}/kitchen/state`]);
    await w.waitFor((m) => m.topic === `${base}/kitchen/state`, 'first state');
    const before = w.messages.length;
    await api.run('kitchen', { duck: 'hello-world' });
    for (let i = 0; i < 200; i++) api.step('kitchen');
    const last = await w.waitFor((m) => (json(m.payload)['run'] as Record<string, unknown> | undefined)?.['step'] === 200, 'the newest state');
    const sent = w.messages.length - before;
    assert.ok(sent <= 5, `201 changes in a burst gave ${sent} state messages`);
    assert.equal(w.messages.at(-1), last);
  });

  test('a robot gone from the fleet: the next start clears its discovery and state (HA removes it)', async () => {
    const base = `qt${process.pid}_${++bases}`;
    const prefix = `ha_${base}`;
    const start = async (fleet: { robot: string; key: 'microduck:sim2d' | 'microduck:jsonrpc' }[]) => {
      const settings = resolveMqttSettings({ url: broker.url, base_topic: base, homeassistant: { discovery_prefix: prefix } }, '/');
      assert.ok(settings !== undefined);
      const door = createMqttFrontDoor(settings, new ServiceDouble(fleet));
      after(() => door.stop());
      await door.start();
      return door;
    };
    const first = await start([
      { robot: 'kitchen', key: 'microduck:sim2d' },
      { robot: 'hall', key: 'microduck:jsonrpc' },
    ]);
    const seen = await watch(broker.url, [`${prefix}/switch/+/+/config`]);
    await seen.waitFor((m) => m.payload !== '', 'the hall torque switch');
    await first.stop();
    const second = await start([{ robot: 'kitchen', key: 'microduck:sim2d' }]);
    await seen.waitFor((m) => m.payload === '', 'the hall switch cleared');
    await until(() => second.status().queued === 0);
    const late = await watch(broker.url, [`${prefix}/#`, `${base}/+/state`]);
    await late.waitFor((m) => m.topic === `${base}/kitchen/state`, 'kitchen state');
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(late.messages.filter((m) => m.topic.includes('hall')), []);
    assert.ok(late.messages.some((m) => m.topic === `${prefix}/sensor/${base}_kitchen/activity/config`));
  });

  test('stop publishes offline for the bridge and every robot, retained', async () => {
    const { base, door } = await rig();
    const w = await watch(broker.url, [`${base}/bridge/state`]);
    await w.waitFor((m) => m.payload === 'online', 'online');
    await door.stop();
    assert.equal(door.status().state, 'stopped');
    const late = await watch(broker.url, [`${base}/bridge/state`, `${base}/+/availability`]);
    assert.equal((await late.waitFor((m) => m.topic === `${base}/bridge/state`)).payload, 'offline');
    assert.equal((await late.waitFor((m) => m.topic === `${base}/kitchen/availability`)).payload, 'offline');
    assert.equal((await late.waitFor((m) => m.topic === `${base}/hall/availability`)).payload, 'offline');
  });
});

describe('an external broker tried as a stranger at start', { skip: noMosquitto }, () => {
  const access = (door: FrontDoor) => (door.health?.() ?? []).find((l) => l.check === 'mqtt access');
  test('mosquitto open to anonymous clients: health warns, with the mosquitto lines that close it; one with logins only: ok', async () => {
    const open = await startMosquitto();
    after(() => open.stop());
    const api = new ServiceDouble([{ robot: 'kitchen', key: 'microduck:sim2d' }]);
    const door = mqttServiceDoor({ url: open.url, base_topic: 'qanon' }, '/');
    assert.ok(door !== undefined);
    after(() => door.stop());
    await door.start(api);
    await until(() => access(door) !== undefined);
    const line = access(door);
    assert.equal(line?.status, 'warn');
    assert.match(line?.detail ?? '', /^a client with no login can command the robots; in mosquitto\.conf: allow_anonymous false, .*"topic write qanon\/\+\/set"/);
    // The probe is never answered, nor taken for a command.
    assert.deepEqual(api.calls, []);

    const closed = await startMosquitto({ users: { quackd: 'service-pass' } });
    after(() => closed.stop());
    const door2 = mqttServiceDoor({ url: closed.url, base_topic: 'qanon', username: 'quackd', password: 'service-pass' }, '/');
    assert.ok(door2 !== undefined);
    after(() => door2.stop());
    await door2.start(api);
    await until(() => access(door2) !== undefined);
    assert.deepEqual(access(door2), { check: 'mqtt access', status: 'ok', detail: 'a client with no login cannot command the robots' });
  });
});
