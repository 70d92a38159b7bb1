/**
 * reachy-mini:daemon in-process against the loopback daemon: the Body contract; a stop (Ctrl-C,
 * a budget's end) stops the daemon's running move by its uuid; a daemon whose backend is stopped
 * is refused before a run starts, and one that loses it mid-run ends the verb with its 503.
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { createDaemonBody, QUACK_FILE } from '../../../src/bodies/reachy-mini/daemon/daemon-body.js';
import { quackWav } from '../../../src/bodies/reachy-mini/daemon/quack-sound.js';
import { DAEMON_METRICS } from '../../../src/bodies/reachy-mini/daemon/settings.js';
import { startFakeDaemon, type FakeDaemon } from '../../helpers/reachy-daemon.js';
import { bodyContract } from '../../contract/body.contract.js';

let shared: FakeDaemon | undefined;
bodyContract('reachy-mini:daemon (loopback daemon)', async () => {
  shared ??= await startFakeDaemon();
  return createDaemonBody({ seed: 0, settings: { base_url: shared.url } });
}, { safeVerb: { verb: 'quack', args: {} }, measures: DAEMON_METRICS });
after(() => shared?.close());

describe('reachy-mini:daemon in-process', () => {
  let daemon: FakeDaemon;
  before(async () => {
    daemon = await startFakeDaemon({ moveMs: 5_000 });
  });
  after(() => daemon.close());

  it('stop() stops the move the daemon is running, and the verb ends at once', async () => {
    const body = await createDaemonBody({ seed: 0, settings: { base_url: daemon.url } });
    const stopping = new AbortController();
    const started = Date.now();
    const verb = body.perform({ verb: 'look', args: { yaw: 40 } }, stopping.signal);
    await new Promise((r) => setTimeout(r, 300));
    await body.stop();
    stopping.abort();
    await verb;
    assert.ok(Date.now() - started < 3_000, 'the verb did not wait out the 5 s move');
    const stopped = daemon.requests.find((q) => q.path === '/api/move/stop');
    const goto = daemon.requests.find((q) => q.path === '/api/move/goto');
    assert.ok(stopped !== undefined && goto !== undefined);
    assert.equal(daemon.state.head.yaw, 0, 'the stopped move never arrived');
    assert.equal(typeof (stopped.body as { uuid: string }).uuid, 'string');
  });

  it('a stop the daemon does not answer in time is said, never taken as done; a daemon that is not there has nothing to stop', async () => {
    const frozen = await startFakeDaemon({ moveMs: 5_000 });
    try {
      const body = await createDaemonBody({ seed: 0, settings: { base_url: frozen.url, timeout_s: 0.5 } });
      // A network drop, or a daemon frozen mid-move: its move may still be running.
      frozen.hang('POST /api/move/stop');
      const stopping = new AbortController();
      const verb = body.perform({ verb: 'look', args: { yaw: 40 } }, stopping.signal);
      await new Promise((r) => setTimeout(r, 300));
      await assert.rejects(body.stop(), /^BodyError: the stop did not reach the Reachy Mini daemon: the Reachy Mini daemon at http:\/\/127\.0\.0\.1:\d+ did not answer POST \/api\/move\/stop within 0\.5 s$/);
      stopping.abort();
      await verb;
      await frozen.close();
      await body.stop();
    } finally {
      await frozen.close().catch(() => undefined);
    }
  });

  it('a move waited out on a run\'s signal leaves no listener on it per poll (the signal lives as long as the run)', async () => {
    const slow = await startFakeDaemon({ moveMs: 1_500 });
    try {
      const body = await createDaemonBody({ seed: 0, settings: { base_url: slow.url } });
      const run = new AbortController();
      const r = await body.perform({ verb: 'look', args: { yaw: 40 } }, run.signal);
      assert.equal(r.ok, true, r.summary);
      assert.ok(getEventListeners(run.signal, 'abort').length <= 1, `${getEventListeners(run.signal, 'abort').length} abort listeners left after one look`);
    } finally {
      await slow.close();
    }
  });

  it("quack uploads quackd's own quack once a run, a 16-bit PCM WAV, and plays it by name each time", async () => {
    const d = await startFakeDaemon();
    try {
      const body = await createDaemonBody({ seed: 0, settings: { base_url: d.url } });
      const first = await body.perform({ verb: 'quack', args: {} });
      const second = await body.perform({ verb: 'quack', args: {} });
      assert.equal(first.summary, 'quack! played quackd-quack.wav, and wiggled its antennas');
      assert.equal(second.ok, true);
      const uploads = d.requests.filter((q) => q.path === '/api/media/sounds/upload');
      assert.equal(uploads.length, 1);
      assert.deepEqual(uploads[0]?.body, { filename: QUACK_FILE, bytes: quackWav().length, wav: true });
      assert.deepEqual(d.requests.filter((q) => q.path === '/api/media/play_sound').map((q) => q.body), [{ file: QUACK_FILE }, { file: QUACK_FILE }]);
      assert.equal(body.metrics()['quacks'], 2);
    } finally {
      await d.close();
    }
  });

  it('a daemon that refuses the sound still gets the wiggle, and the result says why there was no sound', async () => {
    const d = await startFakeDaemon();
    try {
      d.fail('POST /api/media/sounds/upload', 400, 'Unsupported or invalid audio file');
      const body = await createDaemonBody({ seed: 0, settings: { base_url: d.url } });
      const r = await body.perform({ verb: 'quack', args: {} });
      assert.equal(r.ok, true);
      assert.equal(r.summary, 'quack! no sound (the Reachy Mini daemon answered POST /api/media/sounds/upload with 400: Unsupported or invalid audio file), and wiggled its antennas');
      assert.equal(d.gotos().length, 3);
    } finally {
      await d.close();
    }
  });

  it('a daemon whose backend is stopped is refused before anything moves; losing it mid-run ends the verb with its 503', async () => {
    const d = await startFakeDaemon();
    try {
      d.state.backendReady = false;
      await assert.rejects(createDaemonBody({ seed: 0, settings: { base_url: d.url } }), /the Reachy Mini daemon at http:\/\/127\.0\.0\.1:\d+ answers, but its backend is stopped: start it from its dashboard, or POST \/api\/daemon\/start\?wake_up=false$/);
      d.state.backendReady = true;
      const body = await createDaemonBody({ seed: 0, settings: { base_url: d.url } });
      d.state.backendReady = false;
      const r = await body.perform({ verb: 'turn_body', args: { yaw: 30 } });
      assert.equal(r.ok, false);
      assert.equal(r.summary, 'the Reachy Mini daemon answered GET /api/state/full with 503: Backend not running');
      assert.equal(d.gotos().length, 0);
    } finally {
      await d.close();
    }
  });
});
