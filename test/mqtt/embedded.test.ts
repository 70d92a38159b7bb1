/**
 * The embedded broker (aedes), the default when config.yaml names no broker, and Home Assistant
 * discovery through it: every payload checked against HA's documented schema, HA's buttons and
 * switch driving the service, discovery again on HA's birth message, a taken port said and lived
 * with.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import { after, test } from 'node:test';
import { createMqttFrontDoor, type MqttFrontDoor } from '../../src/mqtt/front-door.js';
import { resolveMqttSettings } from '../../src/mqtt/settings.js';
import type { MqttSection } from '../../src/mqtt/config.js';
import { freePort } from '../helpers/mosquitto.js';
import { watch, type Login, type Received } from '../helpers/mqtt-watch.js';
import { readCredentials } from '../../src/mqtt/credentials.js';
import { tempDir } from '../helpers/tmp.js';
import { ServiceDouble } from '../helpers/service-double.js';
import { discoveryProblems } from '../helpers/ha-discovery.js';

async function until(what: string, ok: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The logins the tests' config names: Home Assistant with every right, a runner that may not confirm, a viewer that reads. */
const USERS = { homeassistant: { may: ['command', 'confirm'] }, runner: { may: ['command'] }, viewer: { may: [] } } as const;

async function embedded(section: Exclude<MqttSection, boolean> = {}): Promise<{ door: MqttFrontDoor; api: ServiceDouble; port: number; url: string; home: string; login: (user: string) => Login }> {
  const port = section.port ?? (await freePort());
  const api = new ServiceDouble([
    { robot: 'kitchen', key: 'microduck:sim2d' },
    { robot: 'hall', key: 'microduck:jsonrpc' },
  ]);
  const settings = resolveMqttSettings({ port, users: USERS, ...section }, '/');
  assert.ok(settings !== undefined);
  assert.equal(settings.version, 4);
  const home = tempDir('quackd-embedded-');
  const door = createMqttFrontDoor(settings, api, { dataDir: home });
  after(() => door.stop());
  await door.start();
  const login = (user: string): Login => ({ username: user, password: readCredentials(home)?.get(user) ?? '' });
  return { door, api, port, url: `mqtt://127.0.0.1:${port}`, home, login };
}

const configs = (messages: readonly Received[]) => messages.filter((m) => m.topic.endsWith('/config') && m.payload !== '');

test('no url: the embedded broker on 127.0.0.1 serves the state, retained', async () => {
  const { door, url, login } = await embedded();
  await until('online', () => door.status().state === 'online');
  assert.match(door.status().broker, /^embedded 127\.0\.0\.1:\d+$/);
  const w = await watch(url, ['quackd/bridge/state', 'quackd/+/state'], login('homeassistant'));
  assert.equal((await w.waitFor((m) => m.topic === 'quackd/bridge/state')).payload, 'online');
  const hall = await w.waitFor((m) => m.topic === 'quackd/hall/state');
  assert.equal(hall.retain, true);
  assert.equal((JSON.parse(hall.payload) as { key: string }).key, 'microduck:jsonrpc');
});

test('Home Assistant discovery: every payload fits HA schema; buttons and the torque switch drive the service', async () => {
  const { door, api, url, login } = await embedded();
  await until('online', () => door.status().state === 'online');
  const w = await watch(url, ['homeassistant/#'], login('homeassistant'));
  const expected = [
    'binary_sensor/quackd_hall/gate',
    'binary_sensor/quackd_kitchen/gate',
    'button/quackd_bridge/stop_all',
    'button/quackd_hall/gate_confirm',
    'button/quackd_hall/gate_deny',
    'button/quackd_hall/run_hello-world',
    // patrol: a motion starter on every duck that walks, the real one included
    'button/quackd_hall/run_patrol',
    'button/quackd_hall/stop',
    'button/quackd_kitchen/gate_confirm',
    'button/quackd_kitchen/gate_deny',
    'button/quackd_kitchen/run_find-and-kick',
    'button/quackd_kitchen/run_hello-world',
    'button/quackd_kitchen/run_patrol',
    'button/quackd_kitchen/stop',
    'select/quackd_hall/duck',
    'select/quackd_kitchen/duck',
    'sensor/quackd_hall/activity',
    'sensor/quackd_hall/battery',
    'sensor/quackd_hall/battery_level',
    'sensor/quackd_hall/last_outcome',
    'sensor/quackd_hall/loop_rate',
    'sensor/quackd_kitchen/activity',
    'sensor/quackd_kitchen/last_outcome',
    // The simulators keep torque as state: their switch is there too.
    'switch/quackd_hall/torque',
    'switch/quackd_kitchen/torque',
    'text/quackd_hall/goal',
    'text/quackd_kitchen/goal',
  ];
  const objectOf = (m: Received) => m.topic.replace(/^homeassistant\//, '').replace(/\/config$/, '');
  // Every object the service announces, however slowly a loaded machine delivers them.
  await until('every discovery object', () => new Set(configs(w.messages).map(objectOf)).size >= expected.length);
  const found = configs(w.messages);
  for (const m of found) {
    assert.equal(m.retain, true, m.topic);
    assert.deepEqual(discoveryProblems(m.topic, m.payload), []);
  }
  const objects = [...new Set(found.map(objectOf))].sort();
  assert.deepEqual(objects, expected);
  const payload = (object: string) => JSON.parse(found.find((m) => m.topic === `homeassistant/${object}/config`)?.payload ?? '{}') as Record<string, string>;
  const device = payload('sensor/quackd_hall/battery')['device'] as unknown as Record<string, unknown>;
  assert.equal(device['model'], 'microduck:jsonrpc');
  assert.equal(device['via_device'], 'quackd_bridge');
  // HA presses a button: its payload on its command topic.
  const run = payload('button/quackd_kitchen/run_find-and-kick');
  await w.client.publishAsync(run['command_topic'] ?? '', run['payload_press'] ?? '', { qos: 1 });
  const sw = payload('switch/quackd_hall/torque');
  await w.client.publishAsync(sw['command_topic'] ?? '', sw['payload_off'] ?? '', { qos: 1 });
  const stopAll = payload('button/quackd_bridge/stop_all');
  await w.client.publishAsync(stopAll['command_topic'] ?? '', stopAll['payload_press'] ?? '', { qos: 1 });
  await until('three calls', () => api.calls.length === 3);
  assert.deepEqual(api.calls, [{ method: 'run', robot: 'kitchen', request: { duck: 'find-and-kick' } }, { method: 'torque', robot: 'hall', on: false }, { method: 'stop' }]);
  // The embedded broker saw who pressed them: the run and the stop are that login's and client's.
  const client = w.client.options.clientId ?? '';
  assert.deepEqual(api.askers, [{ method: 'run', by: `mqtt user homeassistant · client ${client}` }, { method: 'stop', by: `mqtt user homeassistant · client ${client}` }]);
  // The switch's state topic now says torque off (what its value_template reads).
  await w.client.subscribeAsync(sw['state_topic'] ?? '');
  await w.waitFor((m) => m.topic === sw['state_topic'] && (JSON.parse(m.payload) as { torque?: boolean }).torque === false, 'torque off in state');

  // HA restarted: its birth message brings discovery again.
  const before = configs(w.messages).length;
  await w.client.publishAsync('homeassistant/status', 'online', { qos: 1 });
  await until('discovery again', () => configs(w.messages).length >= before * 2);
});

test("Home Assistant's login is offered only the entities its rights let it use: none that command with may: [], no gate answers without confirm", async () => {
  const offered = async (may: readonly string[]): Promise<string[]> => {
    const { door, url, login } = await embedded({ users: { homeassistant: { may: may as ('command' | 'confirm')[] } } });
    await until('online', () => door.status().state === 'online');
    const w = await watch(url, ['homeassistant/#'], login('homeassistant'));
    await until('discovery', () => configs(w.messages).some((m) => m.topic.endsWith('/activity/config')));
    await new Promise((r) => setTimeout(r, 200));
    await w.close();
    await door.stop();
    return configs(w.messages).map((m) => m.topic.split('/').slice(1, 4).join('/')).sort();
  };
  const reading = await offered([]);
  assert.ok(reading.includes('sensor/quackd_hall/activity') && reading.includes('binary_sensor/quackd_hall/gate'), reading.join(' '));
  assert.deepEqual(reading.filter((t) => t.startsWith('button/') || t.startsWith('switch/') || t.startsWith('select/') || t.startsWith('text/')), [], 'a button the broker would refuse, and close HA for, is not offered');
  const commanding = await offered(['command']);
  assert.ok(commanding.includes('button/quackd_hall/stop') && commanding.includes('button/quackd_bridge/stop_all'), commanding.join(' '));
  assert.deepEqual(commanding.filter((t) => t.includes('gate_')), [], 'no gate answers without confirm');
  assert.ok((await offered(['command', 'confirm'])).includes('button/quackd_hall/gate_confirm'));
});

test('homeassistant disabled publishes no discovery', async () => {
  const { door, url, login } = await embedded({ homeassistant: { enabled: false } });
  await until('online', () => door.status().state === 'online');
  const w = await watch(url, ['homeassistant/#', 'quackd/bridge/devices'], login('homeassistant'));
  await w.waitFor((m) => m.topic === 'quackd/bridge/devices', 'the device list');
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(configs(w.messages), []);
});

test('a taken port: start() resolves, MQTT is off with the reason in one line', async () => {
  const squatter = createServer();
  await new Promise<void>((r) => squatter.listen(0, '127.0.0.1', r));
  after(() => new Promise<void>((r) => squatter.close(() => r())));
  const address = squatter.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const { door } = await embedded({ port });
  const status = door.status();
  assert.equal(status.state, 'off');
  assert.match(status.reason ?? '', new RegExp(`port ${port} on 127\\.0\\.0\\.1 is taken`));
  assert.ok(!(status.reason ?? '').includes('\n'));
  await door.stop();
  assert.equal(door.status().state, 'off');
});

test('stop closes the embedded broker: its port is free again', async () => {
  const { door, port } = await embedded();
  await until('online', () => door.status().state === 'online');
  await door.stop();
  const again = createServer();
  await new Promise<void>((resolve, reject) => {
    again.once('error', reject);
    again.listen(port, '127.0.0.1', () => resolve());
  });
  await new Promise<void>((r) => again.close(() => r()));
});

test('bounded: a packet over the 256 KB limit cuts its sender off, a payload nested past 64 levels is refused by name; the others go on', async () => {
  const { door, url, login } = await embedded();
  await until('online', () => door.status().state === 'online');
  const w = await watch(url, ['quackd/kitchen/set/response'], login('homeassistant'));
  const big = await connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0, ...login('homeassistant') });
  after(() => big.endAsync(true));
  const cut = new Promise<void>((resolve) => big.once('close', () => resolve()));
  big.publish('quackd/kitchen/set', Buffer.alloc(300 * 1024, 0x20));
  await cut;
  // Refused unread: no transaction can be taken from it.
  await w.client.publishAsync('quackd/kitchen/set', `{"run": ${'['.repeat(100)}${']'.repeat(100)}}`);
  await w.waitFor((m) => m.payload.includes('"error":"payload is nested more than 64 levels deep (the nesting limit)"'), 'the nesting refusal');
  assert.equal((await w.ask('quackd/kitchen/set', { stop: true }, 'quackd/kitchen/set/response'))['status'], 'ok');
});

/** Connects as `login` (anonymous without one): the CONNACK's refusal, or the client. */
async function connectAs(url: string, login?: Login): Promise<{ client?: MqttClient; refused?: string }> {
  try {
    const client = await connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000, ...login });
    after(() => client.endAsync(true));
    return { client };
  } catch (err) {
    return { refused: err instanceof Error ? err.message : String(err) };
  }
}

/** Publishes and waits until the broker has taken it, or cut the connection for it. */
async function publishOrCut(client: MqttClient, topic: string, payload: string, retain = false): Promise<'taken' | 'cut'> {
  const cut = new Promise<'cut'>((resolve) => client.once('close', () => resolve('cut')));
  const taken = client.publishAsync(topic, payload, { qos: 1, retain }).then(
    () => 'taken' as const,
    () => 'cut' as const,
  );
  return Promise.race([taken, cut]);
}

test('logins: anonymous, unknown and wrong-password clients are refused; credentials made at first start, 0640, kept across restarts', async () => {
  const { door, url, home, login } = await embedded();
  await until('online', () => door.status().state === 'online');
  assert.match((await connectAs(url)).refused ?? '', /Bad username or password/i);
  assert.match((await connectAs(url, { username: 'stranger', password: 'x' })).refused ?? '', /Bad username or password/i);
  assert.match((await connectAs(url, { username: 'homeassistant', password: 'wrong' })).refused ?? '', /Bad username or password/i);
  assert.ok((await connectAs(url, login('viewer'))).client !== undefined);
  const file = join(home, 'mqtt-credentials.json');
  assert.equal(statSync(file).mode & 0o777, 0o640);
  const before = readFileSync(file, 'utf8');
  assert.deepEqual(Object.keys(JSON.parse(before) as object).sort(), ['homeassistant', 'quackd', 'runner', 'viewer']);
  await door.stop();
  // A second start finds them: Home Assistant's login keeps working.
  const again = createMqttFrontDoor(resolveMqttSettings({ port: Number(new URL(url).port), users: USERS }, '/')!, new ServiceDouble([{ robot: 'kitchen', key: 'microduck:sim2d' }]), { dataDir: home });
  after(() => again.stop());
  await again.start();
  await until('online', () => again.status().state === 'online');
  assert.equal(readFileSync(file, 'utf8'), before);
});

test("topic rights: only quackd's own login publishes its topics; a viewer may not command, a runner may not answer a gate (refused, logged); HA's login may", async () => {
  const { door, api, url, login } = await embedded();
  await until('online', () => door.status().state === 'online');
  const w = await watch(url, ['quackd/#'], login('homeassistant'));
  await w.waitFor((m) => m.topic === 'quackd/kitchen/availability' && m.payload === 'online', 'kitchen online');
  // Retained state and availability, events, discovery, the bridge's own: not for another login.
  for (const [topic, payload] of [['quackd/kitchen/availability', 'offline'], ['quackd/kitchen/state', '{"activity":"offline"}'], ['quackd/bridge/state', 'offline'], ['quackd/kitchen/event', '{"type":"run_ended"}'], ['homeassistant/button/quackd_kitchen/stop/config', '{}']] as const) {
    const ha = await connectAs(url, login('homeassistant'));
    assert.equal(await publishOrCut(ha.client!, topic, payload, true), 'cut', topic);
  }
  const viewer = await connectAs(url, login('viewer'));
  assert.equal(await publishOrCut(viewer.client!, 'quackd/kitchen/set', '{"stop":true}'), 'cut');
  assert.equal(api.calls.filter((c) => c.method === 'stop').length, 0);
  // The runner may run, not answer: a forged gate answer is refused by name.
  const runner = await watch(url, ['quackd/kitchen/set/response'], login('runner'));
  assert.equal((await runner.ask('quackd/kitchen/set', { run: 'hello-world' }, 'quackd/kitchen/set/response'))['status'], 'ok');
  api.gate('kitchen', 'quack');
  const forged = await runner.ask('quackd/kitchen/set', { confirm: 'quack', answer: true }, 'quackd/kitchen/set/response');
  assert.equal(forged['error'], 'mqtt user runner may not answer gates (the config\'s mqtt.users.runner.may has no confirm)');
  assert.equal(api.calls.filter((c) => c.method === 'answerGate').length, 0);
  // Home Assistant's login may: its answer is a person's, and names the login and client.
  assert.equal((await w.ask('quackd/kitchen/set', { confirm: 'quack', answer: true }, 'quackd/kitchen/set/response'))['status'], 'ok');
  assert.deepEqual(api.hows, ['person']);
  assert.match(api.askers.find((a) => a.method === 'answerGate')?.by ?? '', /^mqtt user homeassistant · client test_/);
  assert.match(api.askers.find((a) => a.method === 'run')?.by ?? '', /^mqtt user runner · client test_/);
  // What the cut publishers tried never reached a subscriber.
  assert.ok(!w.messages.some((m) => m.topic === 'quackd/bridge/state' && m.payload === 'offline'));
  assert.ok(!w.messages.some((m) => m.topic === 'quackd/kitchen/availability' && m.payload === 'offline'));
});
