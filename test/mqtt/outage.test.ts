/**
 * When things die: the door's process killed (the broker publishes its last will), the broker
 * down at boot (start still resolves, one log line), and the broker killed and restarted mid-run
 * (the caller never waits, the outgoing queue stays bounded, retained state is back afterwards).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { createLogger, withLogs } from '../../src/log.js';
import { createMqttFrontDoor, type MqttFrontDoor } from '../../src/mqtt/front-door.js';
import { resolveMqttSettings } from '../../src/mqtt/settings.js';
import { noMosquitto, startMosquitto, type Mosquitto } from '../helpers/mosquitto.js';
import { watch } from '../helpers/mqtt-watch.js';
import { ServiceDouble } from '../helpers/service-double.js';

const CHILD = fileURLToPath(new URL('./door-child.ts', import.meta.url));
let bases = 0;
const nextBase = () => `qo${process.pid}_${++bases}`;

async function until(what: string, ok: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A door whose log records land in `lines` (JSON, one a record). */
async function door(broker: Mosquitto, base: string, api: ServiceDouble, lines: string[] = []): Promise<MqttFrontDoor> {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
      done();
    },
  });
  const settings = resolveMqttSettings({ url: broker.url, base_topic: base }, '/');
  assert.ok(settings !== undefined);
  const d = await withLogs(createLogger('info', sink), () => Promise.resolve(createMqttFrontDoor(settings, api, { reconnectMinMs: 20, reconnectMaxMs: 100, connectTimeoutMs: 1000, limits: { maxQueued: 100, maxInFlight: 16 } })));
  after(() => d.stop());
  await d.start();
  return d;
}

describe('MQTT outages (mosquitto)', { skip: noMosquitto }, () => {
  let broker: Mosquitto;
  before(async () => {
    broker = await startMosquitto();
  });
  after(() => broker.stop());

  test('kill -9 of the process running the door: the broker publishes its last will, offline, retained', async () => {
    const base = nextBase();
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, broker.url, base], { stdio: ['ignore', 'pipe', 'inherit'] });
    after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const w = await watch(broker.url, [`${base}/bridge/state`]);
    await w.waitFor((m) => m.payload === 'online', 'online from the child');
    await until('the child to say online', () => out.includes('online'));
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    const will = await w.waitFor((m) => m.payload === 'offline', 'the last will');
    assert.equal(will.topic, `${base}/bridge/state`);
    const late = await watch(broker.url, [`${base}/bridge/state`]);
    const kept = await late.waitFor(() => true, 'the retained will');
    assert.equal(kept.payload, 'offline');
    assert.equal(kept.retain, true);
  });

  test('a broker down at boot: start() resolves, one log line for many retries, then it connects', async () => {
    const base = nextBase();
    await broker.kill();
    const api = new ServiceDouble([{ robot: 'kitchen', key: 'microduck:sim2d' }]);
    const lines: string[] = [];
    const d = await door(broker, base, api, lines);
    await until('offline', () => d.status().state === 'offline');
    assert.match(d.status().reason ?? '', /ECONNREFUSED/);
    // Retries every 20-100 ms for half a second: still one line.
    await new Promise((r) => setTimeout(r, 500));
    api.update('kitchen', { activity: 'fallen' });
    await broker.start();
    await until('online', () => d.status().state === 'online');
    const said = lines.map((l) => JSON.parse(l) as { msg: string });
    assert.equal(said.filter((l) => l.msg.includes('unreachable')).length, 1, lines.join('\n'));
    assert.equal(said.filter((l) => l.msg.includes('connected')).length, 1, lines.join('\n'));
    const w = await watch(broker.url, [`${base}/kitchen/state`]);
    const state = await w.waitFor(() => true, 'the state published after the broker came up');
    assert.equal((JSON.parse(state.payload) as { activity: string }).activity, 'fallen');
  });

  test('broker killed and restarted mid-run: callers never wait, the queue stays bounded, retained state comes back', async (t) => {
    const base = nextBase();
    const api = new ServiceDouble([{ robot: 'kitchen', key: 'microduck:sim2d' }]);
    const d = await door(broker, base, api);
    await until('online', () => d.status().state === 'online');
    const w = await watch(broker.url, [`${base}/kitchen/event`]);
    await api.run('kitchen', { duck: 'find-and-kick' });
    api.step('kitchen');
    await w.waitFor((m) => m.payload.includes('"type":"step"'), 'a step before the outage');
    await w.close();

    await broker.kill();
    await until('the door to see the outage', () => d.status().state === 'offline');
    // The run goes on while the broker is gone: every step is an event and a new state.
    let slowest = 0;
    const t0 = performance.now();
    for (let i = 0; i < 2000; i++) {
      const s = performance.now();
      api.step('kitchen');
      slowest = Math.max(slowest, performance.now() - s);
    }
    const perStep = (performance.now() - t0) / 2000;
    const callStart = performance.now();
    const status = api.status('kitchen');
    await api.stop('kitchen');
    const callMs = performance.now() - callStart;
    t.diagnostic(`during the outage: ${perStep.toFixed(4)} ms per step (event + state) on average, slowest ${slowest.toFixed(3)} ms; status + stop ${callMs.toFixed(3)} ms`);
    assert.equal(status.run?.step, 2001);
    const during = d.status();
    assert.ok(during.queued <= 100 + 10, `queued ${during.queued}`);
    assert.ok(during.dropped >= 1900, `dropped ${during.dropped}`);

    await broker.start();
    await until('reconnected', () => d.status().state === 'online');
    const late = await watch(broker.url, [`${base}/bridge/state`, `${base}/kitchen/state`, `${base}/kitchen/availability`, `${base}/kitchen/event`]);
    assert.equal((await late.waitFor((m) => m.topic === `${base}/bridge/state`, 'bridge state')).payload, 'online');
    const state = await late.waitFor((m) => m.topic === `${base}/kitchen/state`, 'kitchen state');
    assert.equal(state.retain, true);
    const s = JSON.parse(state.payload) as { activity: string; lastOutcome?: { status: string } };
    assert.equal(s.activity, 'idle');
    assert.equal(s.lastOutcome?.status, 'interrupted');
    assert.equal((await late.waitFor((m) => m.topic === `${base}/kitchen/availability`, 'availability')).payload, 'online');
    // Events flow again.
    await api.run('kitchen', { duck: 'hello-world' });
    await late.waitFor((m) => m.topic === `${base}/kitchen/event` && m.payload.includes('"run_started"') && m.payload.includes('hello-world'), 'an event after the outage');
  });
});
