/**
 * MQTT that a dashboard can live with: the front door against a real mosquitto, watched by an
 * mqtt.js client as Home Assistant or Node-RED would. A robot's retained state is published again
 * only when a field moves past its deadband (a loop rate's jitter is not a change); `<robot>/get`
 * answers with the state now; `bridge/info` is retained with the config minus its secrets;
 * `bridge/logging` carries the log at info and above; `bridge/event` says which robot joined or
 * left and which run started or ended; `bridge/request/restart` is refused where nothing would
 * start the service again. (test/mqtt/serve-dashboard.test.ts does the same through `quackd serve`.)
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createLogger, logger, withLogs } from '../../src/log.js';
import { bridgeInfo, publicConfig } from '../../src/mqtt/bridge-info.js';
import type { MqttSection } from '../../src/mqtt/config.js';
import { beyondDeadband } from '../../src/mqtt/deadband.js';
import { createMqttFrontDoor, type MqttDoorOptions } from '../../src/mqtt/front-door.js';
import { resolveMqttSettings } from '../../src/mqtt/settings.js';
import { registerSecret } from '../../src/secrets.js';
import type { RobotStatus } from '../../src/service/api.js';
import { RestartRequest } from '../../src/service/restart.js';
import { noMosquitto, startMosquitto, type Mosquitto } from '../helpers/mosquitto.js';
import { watch, type Watcher } from '../helpers/mqtt-watch.js';
import { ServiceDouble } from '../helpers/service-double.js';

let broker: Mosquitto;
let bases = 0;

const json = (payload: string) => JSON.parse(payload) as Record<string, unknown>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const loop = (hz: number, missed = 0): NonNullable<RobotStatus['loop']> => ({ hz, periodMs: 20, missed, overruns: 0, state: 'holding', scheduling: 'SCHED_FIFO 10' });

async function rig(options: MqttDoorOptions = {}, section: Exclude<MqttSection, boolean> = {}) {
  const base = `qd${process.pid}_${++bases}`;
  const api = new ServiceDouble([
    { robot: 'bench', key: 'microduck:jsonrpc' },
    { robot: 'den', key: 'microduck:sim2d' },
  ]);
  // 50 states a second: the rate limit never merges the changes a test makes 60 ms apart.
  const settings = resolveMqttSettings({ url: broker.url, base_topic: base, homeassistant: { enabled: false }, state_hz: 50, ...section }, '/');
  assert.ok(settings !== undefined);
  const door = createMqttFrontDoor(settings, api, { reconnectMinMs: 50, reconnectMaxMs: 200, ...options });
  after(() => door.stop());
  await door.start();
  return { base, api, door };
}

/** The states of `robot` published since the last call (the first call: since the watch began). */
function statesSince(w: Watcher, topic: string): () => Record<string, unknown>[] {
  let seen = 0;
  return () => {
    const all = w.messages.filter((m) => m.topic === topic).map((m) => json(m.payload));
    const fresh = all.slice(seen);
    seen = all.length;
    return fresh;
  };
}

describe('deadbands (pure)', () => {
  test('rates, voltages and angles within their deadband are no change; anything else is', () => {
    const idle = { robot: 'bench', activity: 'idle', loop: loop(50), battery_v: 7.4, fell: { at: 'x', tilt_deg: 80 } };
    const moved = (patch: Record<string, unknown>) => beyondDeadband(idle, { ...idle, ...patch });
    assert.equal(moved({ loop: loop(49.99) }), false);
    assert.equal(moved({ loop: loop(50.02) }), false);
    assert.equal(moved({ loop: loop(49.6) }), false);
    assert.equal(moved({ loop: loop(49.5) }), true);
    assert.equal(moved({ loop: loop(50, 1) }), true, 'a missed tick is a change');
    assert.equal(moved({ battery_v: 7.36 }), false);
    // 7.40 - 7.35 is 0.0500000000000007 or 0.0499999999 in floating point: a whole step counts either way.
    assert.equal(moved({ battery_v: 7.35 }), true);
    assert.equal(beyondDeadband({ battery_v: 8.2 }, { battery_v: 8.15 }), true);
    assert.equal(moved({ fell: { at: 'x', tilt_deg: 81 } }), false);
    assert.equal(moved({ fell: { at: 'x', tilt_deg: 82 } }), true);
    assert.equal(moved({ activity: 'running' }), true);
    assert.equal(moved({ torque: true }), true, 'a field that appears is a change');
    const { battery_v: _gone, ...noBattery } = idle;
    assert.equal(beyondDeadband(idle, noBattery), true, 'a field that goes is a change');
  });
});

describe('MQTT for dashboards (mosquitto)', { skip: noMosquitto }, () => {
  before(async () => {
    broker = await startMosquitto();
  });
  after(() => broker.stop());

  test("a robot's state is published again only past a deadband, measured from what was last published", async () => {
    const { base, api } = await rig();
    const topic = `${base}/bench/state`;
    const w = await watch(broker.url, [topic]);
    await w.waitFor((m) => m.topic === topic, 'the retained state');
    const fresh = statesSince(w, topic);
    fresh();
    // Each change on its own, as a loop's snapshot a second apart would come.
    const update = async (patch: Partial<RobotStatus>) => {
      api.update('bench', patch);
      await sleep(60);
    };
    /** `patch` goes out, and nothing else went out since the last check. */
    const published = async (patch: Partial<RobotStatus>, what: string, check: (s: Record<string, unknown>) => boolean) => {
      api.update('bench', patch);
      await w.waitFor((m) => m.topic === topic && check(json(m.payload)), what);
      const got = fresh();
      assert.equal(got.length, 1, `only ${what} went out: ${JSON.stringify(got)}`);
    };
    const hz = (s: Record<string, unknown>) => (s['loop'] as { hz?: number } | undefined)?.hz;

    await published({ loop: loop(50), battery_v: 7.4 }, 'the loop and battery', (s) => hz(s) === 50 && s['battery_v'] === 7.4);
    // The loop rate's jitter and the battery's noise: none of it is published.
    for (const h of [49.99, 50.02, 49.98, 50.01, 50.3, 49.6]) await update({ loop: loop(h) });
    await update({ battery_v: 7.42 });
    await update({ battery_v: 7.36 });
    await published({ loop: loop(48.9) }, 'a rate 1.1 Hz down', (s) => hz(s) === 48.9 && s['battery_v'] === 7.36);
    // A slow drift adds up from what was last published (7.36), not from the value before.
    await update({ battery_v: 7.33 });
    await update({ battery_v: 7.32 });
    await published({ battery_v: 7.31 }, 'the battery 0.05 V down', (s) => s['battery_v'] === 7.31);
    // Counters and words have no deadband.
    await published({ loop: loop(48.9, 1) }, 'a missed tick', (s) => (s['loop'] as { missed?: number } | undefined)?.missed === 1);
    await published({ activity: 'fallen' }, 'fallen', (s) => s['activity'] === 'fallen');
  });

  test('<robot>/get publishes the state now on <robot>/state, within the deadband too; a get for no robot is a log line', async () => {
    const { base, api } = await rig();
    const topic = `${base}/bench/state`;
    const w = await watch(broker.url, [topic]);
    api.update('bench', { loop: loop(50) });
    await w.waitFor((m) => m.topic === topic && (json(m.payload)['loop'] as { hz?: number } | undefined)?.hz === 50, 'loop at 50 Hz');
    api.update('bench', { loop: loop(49.97) });
    await sleep(60);
    // zigbee2mqtt's way of asking ({"state": ""}), and an empty payload: both answered on the state topic.
    for (const payload of ['{"state": ""}', '']) {
      const before = w.messages.length;
      await w.client.publishAsync(`${base}/bench/get`, payload, { qos: 1 });
      const m = await w.waitFor((r) => w.messages.indexOf(r) >= before && r.topic === topic, `the state after get ${JSON.stringify(payload)}`);
      assert.equal((json(m.payload)['loop'] as { hz: number }).hz, 49.97, 'the newest state, not the last published');
    }
  });

  test('bridge/info is retained: version, commit, broker, log level, the config without secrets, the robots', async () => {
    registerSecret('sekrit-api-key-0123');
    const content = publicConfig({
      robots: { bench: { body: 'microduck:jsonrpc', port: '/dev/ttyACM0' } },
      mqtt: { url: 'mqtt://duck:hunter2-pass@broker.lan:1883', username: 'duck', password: 'plain-password-1' },
      pilot: { provider: 'openai', base_url: 'http://me:sekrit-api-key-0123@llm.lan/v1', key_file: '/etc/quackd/api-key', model: 'sekrit-api-key-0123' },
    });
    const { base } = await rig({ config: { file: '/etc/quackd/config.yaml', content } });
    const topic = `${base}/bridge/info`;
    const w = await watch(broker.url, [topic]);
    const m = await w.waitFor((r) => r.topic === topic, 'bridge/info');
    // Retained: a dashboard that subscribes later is handed it at once. (The first watcher may
    // have subscribed before it was published, and a live message carries no retain flag.)
    const later = await watch(broker.url, [topic]);
    assert.equal((await later.waitFor((r) => r.topic === topic, 'bridge/info, retained')).retain, true);
    const info = json(m.payload);
    assert.match(String(info['version']), /^\d+\.\d+\.\d+/);
    const head = spawnSync('git', ['rev-parse', '--short=7', 'HEAD'], { cwd: fileURLToPath(new URL('../../', import.meta.url)), encoding: 'utf8' });
    if (head.status === 0) assert.equal(info['commit'], head.stdout.trim(), 'the commit of the clone it runs from');
    assert.deepEqual(info['robots'], [
      { name: 'bench', body: 'microduck:jsonrpc' },
      { name: 'den', body: 'microduck:sim2d' },
    ]);
    assert.deepEqual(info['mqtt'], { server: broker.url, version: 5, base_topic: base });
    assert.equal(typeof info['log_level'], 'string');
    assert.equal(info['config_file'], '/etc/quackd/config.yaml');
    const config = info['config'] as { mqtt: Record<string, unknown>; pilot: Record<string, unknown>; robots: unknown };
    assert.deepEqual(config.robots, { bench: { body: 'microduck:jsonrpc', port: '/dev/ttyACM0' } });
    assert.equal(config.mqtt['url'], 'mqtt://broker.lan:1883');
    assert.equal(config.mqtt['password'], undefined);
    assert.equal(config.mqtt['username'], 'duck');
    assert.equal(config.pilot['key_file'], '/etc/quackd/api-key', 'where a key is, not what it is');
    for (const secret of ['hunter2-pass', 'plain-password-1', 'sekrit-api-key-0123']) assert.ok(!m.payload.includes(secret), `${secret} in ${m.payload}`);
    // The same payload apart from the machine's own figures, as bridgeInfo builds it.
    assert.deepEqual(Object.keys(bridgeInfo({ version: '1', build: 'b', logLevel: 'info', mqtt: { server: 's', version: 4, baseTopic: 'q' } }, [])), ['version', 'build', 'os', 'mqtt', 'log_level', 'config', 'robots']);
  });

  test('bridge/logging: lines at info and above as {level, message, namespace}, redacted; debug stays out', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    registerSecret('log-secret-98765');
    await withLogs(createLogger('debug', sink), async () => {
      const { base } = await rig();
      const w = await watch(broker.url, [`${base}/bridge/logging`]);
      logger('service').debug('a debug line');
      logger('service').info({ robot: 'bench' }, 'body open');
      logger('bridge').warn({ key: 'log-secret-98765' }, 'link lost');
      logger('service').error('cleanup did not finish in time; exiting');
      await w.client.publishAsync(`${base}/garage/get`, '', { qos: 1 });
      const entry = async (level: string, match: RegExp) => json((await w.waitFor((m) => json(m.payload)['level'] === level && match.test(String(json(m.payload)['message'])), `a ${level} line ${String(match)}`)).payload);
      assert.deepEqual(await entry('info', /body open/), { level: 'info', message: 'service: body open robot=bench', namespace: 'service' });
      assert.deepEqual(await entry('warning', /link lost/), { level: 'warning', message: 'bridge: link lost key=[redacted]', namespace: 'bridge' });
      assert.equal((await entry('error', /cleanup/))['namespace'], 'service');
      assert.match(String((await entry('warning', /get for an unknown robot/))['message']), /^mqtt: get for an unknown robot; known: bench, den robot=garage$/);
      assert.ok(!w.messages.some((m) => m.payload.includes('a debug line')));
      assert.ok(w.messages.every((m) => !m.retain));
    });
    assert.ok(lines.some((l) => l.includes('a debug line')), 'the log itself keeps its debug lines');
  });

  test('bridge/event: a robot leaves and joins again, runs start and end; the fleet found at start is no event', async () => {
    const { base, api } = await rig();
    const w = await watch(broker.url, [`${base}/bridge/event`]);
    api.update('bench', { activity: 'offline', link: 'lost' });
    // A run tried while its link is down (it fails at once) is no coming back: HA's entities must not flap.
    api.update('bench', { activity: 'running', link: 'lost' });
    api.update('bench', { activity: 'offline', link: 'lost' });
    api.update('bench', { activity: 'idle', link: 'ok' });
    await api.run('den', { duck: 'hello-world' });
    api.finish('den');
    await w.waitFor((m) => json(m.payload)['type'] === 'run_ended', 'run_ended');
    const events = w.messages.map((m) => json(m.payload));
    assert.deepEqual(events.slice(0, 3), [
      { type: 'robot_left', data: { robot: 'bench', body: 'microduck:jsonrpc' } },
      { type: 'robot_joined', data: { robot: 'bench', body: 'microduck:jsonrpc' } },
      { type: 'run_started', data: { robot: 'den', body: 'microduck:sim2d', runId: 'run-1', duck: 'hello-world' } },
    ]);
    assert.deepEqual(events[3], { type: 'run_ended', data: { robot: 'den', body: 'microduck:sim2d', runId: 'run-1', outcome: 'success', reason: 'ball moved 0.4 m' } });
  });

  test('bridge/request/restart: refused where nothing would start the service again; else answered, then carried out', async () => {
    const ask = async (options: MqttDoorOptions, payload: Record<string, unknown> = {}) => {
      const { base } = await rig(options);
      const w = await watch(broker.url, [`${base}/bridge/response/restart`]);
      return w.ask(`${base}/bridge/request/restart`, payload, `${base}/bridge/response/restart`);
    };
    assert.match(String((await ask({}))['error']), /^this service cannot restart itself$/);
    const byHand = new RestartRequest({});
    byHand.onRequest(() => assert.fail('a service started by hand restarted'));
    assert.match(String((await ask({ restart: byHand }))['error']), /^quackd serve was not started by systemd, so nothing would start it again after it exits/);

    const underSystemd = new RestartRequest({ INVOCATION_ID: '5d1e0c0f2f5c4a9e8c3b2a1f0e9d8c7b' });
    const asked: string[] = [];
    underSystemd.onRequest((why) => asked.push(why));
    assert.match(String((await ask({ restart: underSystemd }, { now: true }))['error']), /unknown key "now"/);
    assert.deepEqual(asked, []);
    const ok = await ask({ restart: underSystemd });
    assert.deepEqual({ data: ok['data'], status: ok['status'] }, { data: {}, status: 'ok' });
    for (let i = 0; i < 100 && asked.length === 0; i++) await sleep(10);
    assert.deepEqual(asked, ['a restart request over MQTT']);
  });
});
