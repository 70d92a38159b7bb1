/**
 * reachy-mini:daemon as a user drives it: the built CLI (`quackd do`, `quackd run`, `quackd
 * health`, `quackd config check`) against a loopback daemon that implements the routes the body
 * uses as Pollen's source defines them. The requests it received are the assertion: radians on
 * the wire, the mock's limits held, torque through the motor modes; a daemon that is down, answers
 * 500 with a detail, or hangs past the timeout ends the verb with one line, and nothing crashes.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../../helpers/cli.js';
import { closedPort } from '../../helpers/llm-server.js';
import { startFakeDaemon, type FakeDaemon } from '../../helpers/reachy-daemon.js';
import { tempDir } from '../../helpers/tmp.js';

const rad = (d: number): number => (d * Math.PI) / 180;

/** A QUACKD_HOME whose fleet has one robot, `reachy`, behind the daemon at `url`. */
function home(url: string, extra = ''): NodeJS.ProcessEnv {
  const dir = tempDir('quackd-reachy-daemon-');
  writeFileSync(join(dir, 'config.yaml'), `robots:\n  reachy:\n    body: reachy-mini:daemon\n    base_url: ${url}\n${extra}`);
  return { QUACKD_HOME: dir };
}

const oneLine = (stdout: string, stderr: string): void => {
  assert.doesNotMatch(stdout + stderr, /\n\s+at .*:\d+:\d+/, 'no stack trace');
};

describe('reachy-mini:daemon through the built CLI', () => {
  let daemon: FakeDaemon;
  before(async () => {
    daemon = await startFakeDaemon();
  });
  after(() => daemon.close());

  it('turn_body past ±160° is clamped, the head carried, sent in radians, and the result says so', async () => {
    daemon.requests.length = 0;
    const r = await runCli(['do', 'turn_body', '170', '--robot', 'reachy', '--yes'], { env: home(daemon.url) });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /body yaw 170° held at 160° \(the body's limit is ±160°\)/);
    const [goto] = daemon.gotos();
    assert.ok(goto !== undefined);
    assert.ok(Math.abs((goto['body_yaw'] as number) - rad(160)) < 1e-9);
    // The head was at 0°, 160° behind: carried to 95°, 65° from the body.
    assert.ok(Math.abs((goto['head_pose'] as { yaw: number }).yaw - rad(95)) < 1e-9);
    assert.equal(goto['interpolation'], 'minjerk');
    assert.ok((goto['duration'] as number) > 0);
    // The verb waited for the move: it asked the running list after its goto.
    assert.ok(daemon.requests.some((q) => q.path === '/api/move/running'));
    daemon.state.bodyYaw = 0;
    daemon.state.head = { roll: 0, pitch: 0, yaw: 0 };
  });

  it('torque off sets the motors disabled; a move then is refused before any goto; torque on enables them', async () => {
    const env = home(daemon.url);
    const off = await runCli(['do', 'torque', 'false', '--robot', 'reachy', '--yes'], { env });
    assert.equal(off.code, 0, off.stdout + off.stderr);
    assert.ok(daemon.requests.some((q) => q.method === 'POST' && q.path === '/api/motors/set_mode/disabled'));
    assert.equal(daemon.state.mode, 'disabled');
    const before = daemon.gotos().length;
    const look = await runCli(['do', 'look', '30', '--robot', 'reachy', '--yes'], { env });
    assert.notEqual(look.code, 0);
    assert.match(look.stdout, /the motors are off \(limp\): nothing moved; torque on first/);
    assert.equal(daemon.gotos().length, before);
    const on = await runCli(['do', 'torque', 'true', '--robot', 'reachy', '--yes'], { env });
    assert.equal(on.code, 0, on.stdout + on.stderr);
    assert.equal(daemon.state.mode, 'enabled');
  });

  it('quack plays the quack_sound and wiggles the antennas back where they were', async () => {
    daemon.requests.length = 0;
    daemon.state.antennas = [rad(10), rad(-10)];
    const r = await runCli(['do', 'quack', '--robot', 'reachy', '--yes'], { env: home(daemon.url, '    quack_sound: wake_up.wav\n') });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(daemon.requests.find((q) => q.path === '/api/media/play_sound')?.body, { file: 'wake_up.wav' });
    const antennas = daemon.gotos().map((g) => g['antennas'] as number[]);
    assert.equal(antennas.length, 3);
    assert.ok(Math.abs((antennas[2]?.[0] ?? 0) - rad(10)) < 1e-9 && Math.abs((antennas[2]?.[1] ?? 0) - rad(-10)) < 1e-9);
    assert.match(r.stdout, /quack! played wake_up\.wav, and wiggled its antennas/);
    assert.ok(!daemon.requests.some((q) => q.path === '/api/media/sounds/upload'), 'a file the daemon has is not uploaded');
  });

  it('a 500 with a detail ends the verb with the daemon\'s words in one line', async () => {
    const d = await startFakeDaemon();
    try {
      d.fail('POST /api/move/goto', 500, 'motor 12 overload');
      const r = await runCli(['do', 'look', '20', '--robot', 'reachy', '--yes'], { env: home(d.url) });
      assert.notEqual(r.code, 0);
      assert.match(r.stdout, /the Reachy Mini daemon answered POST \/api\/move\/goto with 500: motor 12 overload/);
      oneLine(r.stdout, r.stderr);
    } finally {
      await d.close();
    }
  });

  it('a daemon that hangs past timeout_s ends the verb saying so', async () => {
    const d = await startFakeDaemon();
    try {
      d.hang('POST /api/move/goto');
      const started = Date.now();
      const r = await runCli(['do', 'look', '20', '--robot', 'reachy', '--yes'], { env: home(d.url, '    timeout_s: 0.5\n') });
      assert.notEqual(r.code, 0);
      assert.match(r.stdout, /did not answer POST \/api\/move\/goto within 0\.5 s/);
      assert.ok(Date.now() - started < 30_000);
      oneLine(r.stdout, r.stderr);
    } finally {
      await d.close();
    }
  });

  it('a daemon that is down: the verb ends in one line naming where it looked, and health says so', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const env = home(url);
    const r = await runCli(['do', 'quack', '--robot', 'reachy', '--yes'], { env });
    assert.notEqual(r.code, 0);
    assert.match(r.stdout + r.stderr, new RegExp(`the Reachy Mini daemon at ${url.replace(/\./g, '\\.')} is not answering \\(ECONNREFUSED\\)`));
    oneLine(r.stdout, r.stderr);
    const h = await runCli(['health', '--robot', 'reachy'], { env });
    assert.match(h.stdout, /daemon.*is not answering \(ECONNREFUSED\)/);
  });

  it('health says the daemon is reachable, its version and its motors\' mode', async () => {
    const h = await runCli(['health', '--robot', 'reachy'], { env: home(daemon.url) });
    assert.match(h.stdout, /daemon .*daemon 1\.9\.0, running, simulated \(mockup\) "reachy_mini", motors enabled/);
  });

  it('config check refuses a base_url that is not http(s)', async () => {
    const r = await runCli(['config', 'check'], { env: home('ftp://reachy-mini.local') });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /config\.yaml:4: robots\.reachy\.base_url: an http\(s\) URL, e\.g\. http:\/\/localhost:8000/);
  });

  it('the reachy-lookout starter runs on the daemon: sweeps all round and back, and says it saw nothing', async () => {
    daemon.requests.length = 0;
    const r = await runCli(['run', 'reachy-lookout', '--robot', 'reachy', '--yes', '--no-memory'], { env: home(daemon.url) });
    assert.match(r.stdout, /^reachy-lookout on reachy/m);
    assert.match(r.stdout, /look_around +looked all round, head level, and came back; no camera \(give the robot a camera: setting to see\)/);
    const bodyYaws = daemon.gotos().map((g) => Math.round(((g['body_yaw'] as number) * 180) / Math.PI));
    assert.deepEqual(bodyYaws, [-160, -150, -120, -90, -60, -30, 0, 30, 60, 90, 120, 150, 160, 0]);
    assert.match(r.stdout, /failure — .*saw nothing/);
  });

  it('with a camera: setting whose device is not there, the sweep ends in one line and the daemon gets its camera back', async () => {
    daemon.requests.length = 0;
    const env = home(daemon.url, '    camera:\n      device: /dev/video-quackd-absent\n      deadline_ms: 2000\n');
    const check = await runCli(['config', 'check'], { env });
    assert.equal(check.code, 0, check.stdout + check.stderr);
    // health does not take the camera from the daemon's pipeline (a WebRTC viewer may be on it).
    const h = await runCli(['health', '--robot', 'reachy'], { env });
    assert.match(h.stdout, /camera +ok +\/dev\/video-quackd-absent: held by the daemon at http:\/\/127\.0\.0\.1:\d+ \(its media pipeline\)/);
    assert.equal(daemon.requests.filter((q) => q.path === '/api/media/release').length, 0);
    daemon.requests.length = 0;
    const r = await runCli(['run', 'reachy-lookout', '--robot', 'reachy', '--yes', '--no-memory'], { env });
    oneLine(r.stdout, r.stderr);
    assert.match(r.stdout, /look_around +.*video-quackd-absent/);
    const media = daemon.requests.filter((q) => q.path.startsWith('/api/media/') && q.path !== '/api/media/play_sound' && !q.path.startsWith('/api/media/sounds')).map((q) => `${q.method} ${q.path}`);
    assert.deepEqual(media, ['GET /api/media/status', 'POST /api/media/release', 'POST /api/media/acquire']);
    assert.equal(daemon.state.media.released, false);
    daemon.state.bodyYaw = 0;
    daemon.state.head = { roll: 0, pitch: 0, yaw: 0 };
  });
});

describe('the reachy-lookout starter on reachy-mini:mock', () => {
  it('succeeds with the fake pilot, verified by its quack', async () => {
    const r = await runCli(['run', 'reachy-lookout', '--no-memory'], { env: { QUACKD_HOME: tempDir('quackd-reachy-mock-') } });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^reachy-lookout on reachy-mini:mock/m);
    assert.match(r.stdout, /success — .*quacks 1 ≥ 1/);
  });
});
