/**
 * `quackd serve` with its front doors wired, as systemd runs it (the built bin in a child), against
 * a real mosquitto and against the embedded aedes: a run started from `<robot>/set`, its events
 * and retained state, its outcome in the state, an emergency stop, HA discovery retained; `quackd
 * health` against the running service lists the service's own lines (a robot whose link is not
 * open fails it, exit 1); SIGTERM leaves `bridge/state` retained `offline` and exits 0.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort, noMosquitto, startMosquitto } from '../helpers/mosquitto.js';
import { connectAsync } from 'mqtt';
import { watch, type Login, type Received } from '../helpers/mqtt-watch.js';
import { quackd } from '../helpers/quackd.js';
import { serve } from '../helpers/serve.js';
import { tempDir } from '../helpers/tmp.js';

const json = (m: Received): Record<string, unknown> => JSON.parse(m.payload) as Record<string, unknown>;
const isEvent = (type: string) => (m: Received) => m.topic === 'quackd/den/event' && json(m)['type'] === type;

/** The run on `den` through MQTT, start to outcome, then an emergency stop; both answered ok. */
async function runThroughMqtt(url: string, login?: Login): Promise<void> {
  const w = await watch(url, ['quackd/#'], login);
  const started = await w.ask('quackd/den/set', { run: 'hello-world' }, 'quackd/den/set/response');
  assert.equal(started['status'], 'ok', JSON.stringify(started));
  const start = json(await w.waitFor(isEvent('run_started'), 'run_started'));
  const ended = json(await w.waitFor(isEvent('run_ended'), 'run_ended', 30_000));
  assert.equal(ended['runId'], start['runId']);
  await w.waitFor((m) => m.topic === 'quackd/den/event' && json(m)['type'] === 'step', 'a step event');
  // The outcome in the robot's retained state: a dashboard that connects later sees how it went.
  const state = json(await w.waitFor((m) => m.topic === 'quackd/den/state' && (json(m)['lastOutcome'] as { runId?: string } | undefined)?.runId === start['runId'], 'the outcome in the state'));
  const outcome = state['lastOutcome'] as { status: string; duck: string };
  assert.equal(outcome.status, 'success');
  assert.equal(outcome.duck, 'hello-world');
  assert.equal(state['activity'], 'idle');
  const stopped = await w.ask('quackd/den/set', { stop: true }, 'quackd/den/set/response');
  assert.equal(stopped['status'], 'ok', JSON.stringify(stopped));
  await w.close();
}

/** What a client connecting now is handed as retained. */
async function retained(url: string, filters: readonly string[], login?: Login, settleMs = 300): Promise<Received[]> {
  const w = await watch(url, filters, login);
  await new Promise((r) => setTimeout(r, settleMs));
  await w.close();
  return w.messages.filter((m) => m.retain);
}

describe('quackd serve with MQTT, spawned', () => {
  it('a real mosquitto: runs from set, events, retained state and discovery, health, offline on SIGTERM', { skip: noMosquitto }, async () => {
    const broker = await startMosquitto();
    after(() => broker.stop());
    const home = tempDir('quackd-serve-mqtt-');
    const s = await serve(home, `robots:\n  den: { body: microduck:sim2d }\nmqtt:\n  url: ${broker.url}\n`);

    await runThroughMqtt(broker.url);

    const kept = await retained(broker.url, ['quackd/#', 'homeassistant/#']);
    const topic = (t: string) => kept.find((m) => m.topic === t);
    assert.equal(topic('quackd/bridge/state')?.payload, 'online');
    assert.equal(topic('quackd/den/availability')?.payload, 'online');
    assert.equal((json(topic('quackd/den/state') ?? { topic: '', payload: '{}', retain: true })['lastOutcome'] as { status?: string } | undefined)?.status, 'success');
    const configs = kept.filter((m) => m.topic.startsWith('homeassistant/') && m.topic.endsWith('/config') && m.payload !== '');
    assert.ok(configs.some((m) => m.topic.includes('den')), `HA discovery for den retained: ${configs.map((m) => m.topic).join(' ')}`);

    // quackd health against the running service: its own lines after the service's.
    const health = await quackd(['health', '--robot', 'den', '--json'], { env: { QUACKD_HOME: home } });
    const lines = JSON.parse(health.stdout) as { check: string; status: string; detail: string }[];
    const line = (name: string) => lines.find((l) => l.check === name);
    assert.equal(line('service')?.status, 'ok', health.stdout);
    assert.match(line('service')?.detail ?? '', new RegExp(`^running · pid ${s.child.pid} · up `));
    // The local store check and the service's are one line (both ok: the local one, with its path).
    assert.equal(lines.filter((l) => l.check === 'store').length, 1, health.stdout);
    assert.equal(line('store')?.status, 'ok', health.stdout);
    assert.equal(line('broker')?.status, 'ok');
    assert.match(line('broker')?.detail ?? '', new RegExp(`^connected to mqtt://127\\.0\\.0\\.1:${broker.port}`));
    assert.equal(health.code, 0, health.stdout);

    // quackd status shows the broker line too.
    const status = await quackd(['status', '--json'], { env: { QUACKD_HOME: home } });
    const doors = (JSON.parse(status.stdout) as { doors: { label: string; ok: boolean }[] }).doors;
    assert.deepEqual(doors.map((d) => [d.label, d.ok]), [['broker', true]]);

    const w = await watch(broker.url, ['quackd/bridge/state']);
    const sentAt = Date.now();
    s.child.kill('SIGTERM');
    const r = await s.exited;
    assert.equal(r.code, 0, r.stderr);
    // Not a timing target (the service's own deadline exits 1 past 5 s): how close it came, with MQTT.
    console.log(`# SIGTERM to exit with MQTT: ${Date.now() - sentAt} ms`);
    await w.waitFor((m) => m.topic === 'quackd/bridge/state' && m.payload === 'offline', 'offline at stop');
    const after_ = await retained(broker.url, ['quackd/bridge/state', 'quackd/den/availability']);
    assert.deepEqual(after_.map((m) => [m.topic, m.payload]).sort(), [['quackd/bridge/state', 'offline'], ['quackd/den/availability', 'offline']]);
    // Said offline cleanly, not by the broker's last will: the log says the stop went in order.
    assert.ok(r.stderr.includes('quackd serve stopped'), r.stderr);
  });

  it('commands left retained on the broker (a dashboard\'s retain switch) are not carried out at start: a log line each, and live ones still are', { skip: noMosquitto }, async () => {
    const broker = await startMosquitto();
    after(() => broker.stop());
    const dashboard = await connectAsync(broker.url, { protocolVersion: 4, reconnectPeriod: 0 });
    await dashboard.publishAsync('quackd/den/set', JSON.stringify({ run: 'hello-world', transaction: 'left' }), { retain: true, qos: 1 });
    await dashboard.publishAsync('quackd/bridge/request/run', JSON.stringify({ robot: 'den', duck: 'hello-world', transaction: 'left-bridge' }), { retain: true, qos: 1 });
    await dashboard.endAsync();
    const w = await watch(broker.url, ['quackd/#']);
    const home = tempDir('quackd-serve-retained-');
    const s = await serve(home, `robots:\n  den: { body: microduck:sim2d }\nmqtt:\n  url: ${broker.url}\n`);
    const warned = (topic: string) => s.stderr().includes(`ignored a command left retained on ${topic}: a command acts once, when sent`);
    for (const until = Date.now() + 10_000; !(warned('quackd/den/set') && warned('quackd/bridge/request/run')); ) {
      assert.ok(Date.now() < until, `no line about the retained commands:\n${s.stderr()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // Whatever the service would have done with them it would have done by now.
    await new Promise((r) => setTimeout(r, 500));
    assert.ok(!s.stderr().includes('run started'), s.stderr());
    assert.deepEqual(w.messages.filter((m) => m.topic.endsWith('/response') || m.topic === 'quackd/den/event').map((m) => m.topic), []);
    const status = await quackd(['status', '--json'], { env: { QUACKD_HOME: home } });
    assert.equal((JSON.parse(status.stdout) as { robots: { robot: string; lastOutcome?: unknown }[] }).robots.find((r) => r.robot === 'den')?.lastOutcome, undefined, status.stdout);
    // A command sent now is carried out as ever.
    await runThroughMqtt(broker.url);
    s.child.kill('SIGTERM');
    assert.equal((await s.exited).code, 0);
  });

  it('the embedded aedes (no url): the same run from set; a robot whose link is not open is a health warning, exit 0', async () => {
    const port = await freePort();
    const home = tempDir('quackd-serve-aedes-');
    // The embedded default, moved off 1883 so a broker already on this machine does not collide.
    const s = await serve(home, `robots:\n  den: { body: microduck:sim2d }\n  hall: { body: microduck:jsonrpc, port: ${join(home, 'no-such-tty')} }\nmqtt:\n  port: ${port}\n  users:\n    homeassistant: { may: [command] }\n`);
    const url = `mqtt://127.0.0.1:${port}`;
    // What a person gives Home Assistant, as quackd says it: the broker, the user and its password.
    const creds = await quackd(['mqtt', 'credentials', '--json'], { env: { QUACKD_HOME: home } });
    assert.equal(creds.code, 0, creds.stderr);
    const { broker, users } = JSON.parse(creds.stdout) as { broker: { host: string; port: number }; users: { user: string; password: string; may: string[] }[] };
    assert.deepEqual(broker, { host: '127.0.0.1', port });
    assert.deepEqual(users.map((u) => [u.user, u.may]), [['homeassistant', ['command']]]);
    const login = { username: 'homeassistant', password: users[0]?.password ?? '' };
    const words = await quackd(['mqtt', 'credentials'], { env: { QUACKD_HOME: home } });
    assert.match(words.stdout, new RegExp(`^  user homeassistant  password ${login.password}  may command$`, 'm'));
    // Anonymous: turned away.
    await assert.rejects(connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0 }), /Bad username or password/i);

    await runThroughMqtt(url, login);
    const kept = await retained(url, ['quackd/bridge/state', 'homeassistant/#'], login);
    assert.equal(kept.find((m) => m.topic === 'quackd/bridge/state')?.payload, 'online');
    assert.ok(kept.some((m) => m.topic.startsWith('homeassistant/') && m.topic.endsWith('/config')), 'HA discovery retained on the embedded broker');

    const health = await quackd(['health', '--robot', 'den'], { env: { QUACKD_HOME: home } });
    assert.match(health.stdout, /^service +ok +running · pid \d+/m);
    assert.match(health.stdout, /^link hall +warn +not open: serial port .*no-such-tty not found/m);
    assert.match(health.stdout, new RegExp(`^broker +ok +connected to embedded 127\\.0\\.0\\.1:${port}`, 'm'));
    assert.equal(health.code, 0, health.stdout);

    s.child.kill('SIGTERM');
    const r = await s.exited;
    assert.equal(r.code, 0, r.stderr);
  });

  it('a robot named like fleet memory\'s topic (memory) is left out of MQTT in one line, and the others are served', async () => {
    const port = await freePort();
    const home = tempDir('quackd-serve-memory-name-');
    const s = await serve(home, `robots:\n  memory: { body: microduck:sim2d }\n  den: { body: microduck:sim2d }\nmqtt:\n  port: ${port}\n  users:\n    homeassistant: { may: [command] }\n`);
    const url = `mqtt://127.0.0.1:${port}`;
    const creds = await quackd(['mqtt', 'credentials', '--json'], { env: { QUACKD_HOME: home } });
    const login = { username: 'homeassistant', password: (JSON.parse(creds.stdout) as { users: { password: string }[] }).users[0]?.password ?? '' };
    const kept = await retained(url, ['quackd/bridge/devices', 'homeassistant/#'], login, 1000);
    const devices = JSON.parse(kept.find((m) => m.topic === 'quackd/bridge/devices')?.payload ?? '{}') as { robots?: string[] };
    assert.deepEqual(devices.robots, ['den']);
    assert.deepEqual(kept.filter((m) => m.topic.includes('quackd_memory')).map((m) => m.topic), [], 'no Home Assistant entity whose commands the broker would refuse');
    assert.match(s.stderr(), /robot left out of MQTT: quackd\/memory is fleet memory's topic \(memory\.share_topic\): rename the robot, or move the share topic/);
    // HA still stops den, on a connection the broker keeps.
    const w = await watch(url, ['quackd/den/set/response'], login);
    const stopped = await w.ask('quackd/den/set', { stop: true }, 'quackd/den/set/response');
    assert.equal(stopped['status'], 'ok', JSON.stringify(stopped));
    await w.close();
    s.child.kill('SIGTERM');
    assert.equal((await s.exited).code, 0);
  });

  it('an mqtt section it cannot use (a password file open to others): one line, and serve goes on without MQTT', async () => {
    const home = tempDir('quackd-serve-badmqtt-');
    writeFileSync(join(home, 'mqtt-password'), 'hunter2\n', { mode: 0o644 });
    const s = await serve(home, `robots:\n  den: { body: microduck:sim2d }\nmqtt:\n  url: mqtt://127.0.0.1:1\n  username: quackd\n  password_file: mqtt-password\n`);
    const warned = s
      .stderr()
      .split('\n')
      .filter((l) => l.includes('MQTT is off'));
    assert.equal(warned.length, 1, s.stderr());
    const status = await quackd(['status', '--json'], { env: { QUACKD_HOME: home } });
    const doors = (JSON.parse(status.stdout) as { doors: { label: string; value: string; ok: boolean }[] }).doors;
    assert.equal(doors[0]?.ok, false);
    assert.match(doors[0]?.value ?? '', /^off \(.*mqtt-password.*\)$/);
    assert.ok(!s.stderr().includes('hunter2'));
    s.child.kill('SIGTERM');
    assert.equal((await s.exited).code, 0);
  });
});
