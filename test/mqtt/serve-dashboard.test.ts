/**
 * `quackd serve` as systemd runs it (the built bin in a child, INVOCATION_ID set), two Microducks
 * held (the host firmware over ptys, their control loops running), a real mosquitto, and the
 * clients a user checks with: mosquitto_sub and an mqtt.js subscriber. An idle duck's retained
 * state is not published again for 3 s while its loop runs, though the loop's rate jitters; a
 * duck whose battery drains past the deadband is; bridge/info is retained; log lines arrive on
 * bridge/logging; `<robot>/get` answers on the state topic; bridge/request/restart answers, stops
 * cleanly and exits with the code the unit restarts on.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { beyondDeadband } from '../../src/mqtt/deadband.js';
import { RESTART_EXIT_CODE } from '../../src/service/restart.js';
import { Rig, missingTools } from '../bridge/rig.js';
import { noMosquitto, startMosquitto, type Mosquitto } from '../helpers/mosquitto.js';
import { watch, type Received } from '../helpers/mqtt-watch.js';
import { serve } from '../helpers/serve.js';
import { skipOutsideCi } from '../helpers/skip.js';
import { tempDir } from '../helpers/tmp.js';

const noSub = skipOutsideCi(spawnSync('mosquitto_sub', ['--help']).error === undefined ? undefined : 'mosquitto_sub is not installed (apt-get install mosquitto-clients)');
const UNIT = fileURLToPath(new URL('../../systemd/quackd.service', import.meta.url));
const WINDOW_S = 3;

const json = (m: Received | string): Record<string, unknown> => JSON.parse(typeof m === 'string' ? m : m.payload) as Record<string, unknown>;

/** mosquitto_sub as a person runs it; resolves with what it printed once it exits (-W, -C). */
function mosquittoSub(port: number, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('mosquitto_sub', ['-h', '127.0.0.1', '-p', String(port), ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', () => resolve(out));
    after(() => child.kill('SIGKILL'));
  });
}

/** Whether a systemd unit restarts its service when the main process exits with `code`, and calls that a failure. */
function unitOn(unit: string, code: number): { restarts: boolean; failure: boolean } {
  const values = (key: string) => (unit.match(new RegExp(`^${key}=(.*)$`, 'gm')) ?? []).flatMap((l) => l.slice(key.length + 1).split(/\s+/));
  const success = code === 0 || values('SuccessExitStatus').includes(String(code));
  const restart = values('Restart').at(-1) ?? 'no';
  // systemd.service(5): RestartForceExitStatus= wins over Restart=; on-failure restarts an unclean exit code.
  const restarts = values('RestartForceExitStatus').includes(String(code)) || restart === 'always' || (restart === 'on-failure' && !success);
  return { restarts, failure: !success };
}

describe('quackd serve for dashboards: two held Microducks, mosquitto, mosquitto_sub', { skip: noMosquitto ?? missingTools() ?? noSub }, () => {
  let broker: Mosquitto;
  let still: Rig;
  let draining: Rig;
  let config: string;

  before(async () => {
    broker = await startMosquitto();
    // A long firmware watchdog: nothing moves here, and a loaded machine must not cut the link.
    still = await Rig.start(['--watchdog-ms', '5000', '--drain', '0']);
    // 0.05 V a second, past the battery's deadband about once a second, from high enough that it
    // is still falling minutes later on a loaded machine (the firmware stops at its empty voltage).
    draining = await Rig.start(['--watchdog-ms', '5000', '--battery', '20', '--drain', '0.05']);
    config = [
      'robots:',
      `  still: { body: microduck:jsonrpc, port: ${JSON.stringify(still.hostPath)} }`,
      `  draining: { body: microduck:jsonrpc, port: ${JSON.stringify(draining.hostPath)} }`,
      'mqtt:',
      `  url: ${broker.url}`,
      '  health_interval_s: 1',
      '',
    ].join('\n');
  });
  after(async () => {
    await still?.cleanup();
    await draining?.cleanup();
    await broker?.stop();
  });

  // One service for the steps below, in order: an `after` made in a `before` hook runs when the
  // hook ends, so the service (whose helper stops it in an `after`) is started in this test.
  it('serves dashboards until a restart request', async (t) => {
    // INVOCATION_ID: as systemd starts it, so that a restart may be asked for.
    const s = await serve(tempDir('quackd-serve-dashboard-'), config, { INVOCATION_ID: '0f3a2b1c4d5e6f708192a3b4c5d6e7f8' });
    await t.test(`an idle duck's state is not published again over ${WINDOW_S} s while its loop runs; a battery past the deadband is`, async () => {
      const w = await watch(broker.url, ['quackd/+/state', 'quackd/bridge/health']);
      const loopOf = (m: Received) => json(m)['loop'] as { hz: number; state: string } | undefined;
      const ready = (robot: string) =>
        w.waitFor((m) => m.topic === `quackd/${robot}/state` && loopOf(m)?.state === 'holding' && json(m)['battery_v'] !== undefined, `${robot}'s loop holding`, 60_000).catch((err: unknown) => {
          const gone = s.child.exitCode !== null || s.child.signalCode !== null ? ` (quackd serve exited: ${s.child.exitCode ?? s.child.signalCode})` : '';
          throw new Error(`${err instanceof Error ? err.message : String(err)}${gone}\nthe service's log:\n${s.stderr()}`);
        });
      await Promise.all([ready('still'), ready('draining')]);
      const start = w.messages.length;
      // Both clients at once, for the same window: mosquitto_sub without the retained message (-R).
      const [subStill, subDraining] = await Promise.all([mosquittoSub(broker.port, ['-t', 'quackd/still/state', '-R', '-W', String(WINDOW_S)]), mosquittoSub(broker.port, ['-t', 'quackd/draining/state', '-R', '-W', String(WINDOW_S)])]);
      const during = w.messages.slice(start);

      // The loop ran all along: the health published each second has its rate (what jitters).
      const rates = during.filter((m) => m.topic === 'quackd/bridge/health').map((m) => (json(m)['robots'] as Record<string, { loop_hz?: number }>)['still']?.loop_hz);
      assert.ok(rates.filter((r) => r !== undefined).length >= 2, `the loop's rate in bridge/health: ${JSON.stringify(rates)}`);
      console.log(`# still's loop rate during the window: ${rates.join(', ')} Hz`);

      // Still: nothing, or only what really changed (a missed tick on a loaded machine), never jitter.
      const lines = subStill.split('\n').filter((l) => l !== '');
      const stillStates = during.filter((m) => m.topic === 'quackd/still/state').map((m) => json(m));
      // mosquitto_sub's window is inside mqtt.js's (it starts after it and ends before): a subset.
      const seen = new Set(stillStates.map((state) => JSON.stringify(state)));
      for (const line of lines) assert.ok(seen.has(JSON.stringify(json(line))), `mosquitto_sub printed what mqtt.js did not get: ${line}`);
      let last = json([...w.messages.slice(0, start)].reverse().find((m) => m.topic === 'quackd/still/state') ?? { topic: '', payload: '{}', retain: false });
      for (const state of stillStates) {
        assert.ok(beyondDeadband(last, state), `published again within the deadbands:\n${JSON.stringify(last)}\n${JSON.stringify(state)}`);
        last = state;
      }
      console.log(`# still's state published ${stillStates.length} times in ${WINDOW_S} s`);

      // Draining: the battery went out as it fell, each step at least the deadband. A state may go
      // out for another field with the battery where it was (its loop's rate on a loaded machine).
      const volts = subDraining
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => json(l)['battery_v'] as number);
      assert.ok(volts.length >= 1, `the draining battery was published: ${subDraining}`);
      const changes = volts.filter((v, i) => i === 0 || v !== volts[i - 1]);
      for (let i = 1; i < changes.length; i++) assert.ok((changes[i - 1] ?? 0) - (changes[i] ?? 0) >= 0.05 - 1e-9, `battery steps ${volts.join(' → ')}`);
    });

    await t.test('bridge/info is retained (mosquitto_sub --retained-only): version, broker, config, robots', async () => {
      const out = await mosquittoSub(broker.port, ['-t', 'quackd/bridge/info', '--retained-only', '-C', '1', '-W', '10']);
      const info = json(out.trim());
      assert.match(String(info['version']), /^\d+\.\d+\.\d+/);
      assert.deepEqual(info['robots'], [
        { name: 'still', body: 'microduck:jsonrpc' },
        { name: 'draining', body: 'microduck:jsonrpc' },
      ]);
      assert.deepEqual(info['mqtt'], { server: broker.url, version: 5, base_topic: 'quackd' });
      assert.equal(info['log_level'], 'info');
      assert.equal((info['config'] as { mqtt: { health_interval_s: number } }).mqtt.health_interval_s, 1);
      assert.match(String(info['config_file']), /config\.yaml$/);
    });

    await t.test('<robot>/get answers on <robot>/state; a get for no robot is a warning on bridge/logging', async () => {
      const w = await watch(broker.url, ['quackd/still/state', 'quackd/bridge/logging']);
      await w.waitFor((m) => m.topic === 'quackd/still/state' && m.retain, 'the retained state');
      const before = w.messages.length;
      await w.client.publishAsync('quackd/still/get', '{"state": ""}', { qos: 1 });
      const answer = await w.waitFor((m) => w.messages.indexOf(m) >= before && m.topic === 'quackd/still/state', 'the state after get');
      assert.equal(json(answer)['robot'], 'still');
      assert.equal(json(answer)['activity'], 'idle');
      // Any payload, as README says: one past the 4 KiB a command may have is still a get.
      const later = w.messages.length;
      await w.client.publishAsync('quackd/still/get', 'x'.repeat(5000), { qos: 1 });
      await w.waitFor((m) => w.messages.indexOf(m) >= later && m.topic === 'quackd/still/state', 'the state after a long get');
      await w.client.publishAsync('quackd/garage/get', '', { qos: 1 });
      const warning = await w.waitFor((m) => m.topic === 'quackd/bridge/logging' && /unknown robot/.test(m.payload), 'a warning line');
      assert.deepEqual(json(warning), { level: 'warning', message: 'mqtt: get for an unknown robot; known: still, draining robot=garage', namespace: 'mqtt' });
    });

    await t.test('bridge/request/restart answers ok, logs it, stops cleanly and exits with the code the unit restarts on', async () => {
      const w = await watch(broker.url, ['quackd/bridge/response/restart', 'quackd/bridge/logging', 'quackd/bridge/state']);
      const answer = await w.ask('quackd/bridge/request/restart', {}, 'quackd/bridge/response/restart');
      assert.deepEqual({ data: answer['data'], status: answer['status'] }, { data: {}, status: 'ok' });
      await w.waitFor((m) => m.topic === 'quackd/bridge/logging' && json(m)['message'] === 'service: quackd serve stopping why="a restart request over MQTT"', 'the stop on bridge/logging');
      const r = await s.exited;
      assert.equal(r.code, RESTART_EXIT_CODE, r.stderr);
      // The stop went in order (the log says so): offline is quackd's own, not the broker's last will.
      assert.ok(r.stderr.includes('quackd serve stopped'), r.stderr);
      await w.waitFor((m) => m.topic === 'quackd/bridge/state' && m.payload === 'offline', 'offline');
      assert.deepEqual(unitOn(readFileSync(UNIT, 'utf8'), RESTART_EXIT_CODE), { restarts: true, failure: false });
      assert.deepEqual(unitOn(readFileSync(UNIT, 'utf8'), 1), { restarts: true, failure: true }, 'a crash is still restarted as a failure');
    });
  });
});
