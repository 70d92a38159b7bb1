/**
 * reachy-mini:daemon with a camera: the daemon owns the robot's camera (its media server streams
 * it), so the body asks it to release the camera before its first look and gives it back when it
 * closes; look, turn_body and look_around glance through the camera and say where the colour
 * detector sees the ball, from the robot's front. The camera here renders sim2d's room from the
 * loopback daemon's head pose as it stands after each move (what is simulated: the picture); the
 * body, the detector and the daemon's routes are the real ones. A real ffmpeg on a device that is
 * not there is the camera that fails: one line, and the daemon gets its media back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DaemonClient } from '../../../src/bodies/reachy-mini/daemon/client.js';
import { createDaemonBody } from '../../../src/bodies/reachy-mini/daemon/daemon-body.js';
import { DaemonReleasedCamera } from '../../../src/bodies/reachy-mini/daemon/daemon-camera.js';
import { SIM2D_BALL_LOOK } from '../../../src/bodies/microduck/sim2d/camera-scan.js';
import { bearingTo, deg, dist } from '../../../src/bodies/microduck/sim2d/arena.js';
import { renderView } from '../../../src/bodies/microduck/sim2d/view.js';
import { CameraError, type Camera, type CameraFrame } from '../../../src/camera/camera.js';
import { startFakeDaemon, type FakeDaemon } from '../../helpers/reachy-daemon.js';

/** Where the robot sits in sim2d's room, facing +x, and the ball: behind it to the left. */
const SEAT = { x: 1.5, y: 2 };
const BALL = { x: 0.8, y: 2.45 };
const TRUTH = { bearing: deg(bearingTo({ ...SEAT, heading: 0 }, BALL)), distance: dist(SEAT, BALL) };

/** The head's camera: what the daemon's head yaw points at now; `failAt` makes that grab a camera gone. */
class HeadCamera implements Camera {
  readonly source = 'synthetic';
  grabs = 0;
  /** Whether the daemon had released its media when each frame was taken. */
  readonly releasedAtGrab: boolean[] = [];
  closed = 0;
  constructor(
    private readonly daemon: FakeDaemon,
    private readonly failAt?: number,
  ) {}
  grab(): Promise<CameraFrame> {
    this.grabs += 1;
    this.releasedAtGrab.push(this.daemon.state.media.released);
    if (this.grabs === this.failAt) return Promise.reject(new CameraError('gone', 'camera /dev/video0 went away (ffmpeg exited 1)'));
    // The daemon keeps the head's yaw in radians, from the robot's front.
    const pose = { ...SEAT, heading: this.daemon.state.head.yaw };
    return Promise.resolve({ ...renderView(pose, BALL, SIM2D_BALL_LOOK.lens), at: Date.now() });
  }
  health(): Promise<{ status: 'ok'; detail: string }> {
    return Promise.resolve({ status: 'ok', detail: 'camera synthetic (test)' });
  }
  close(): Promise<void> {
    this.closed += 1;
    return Promise.resolve();
  }
}

describe('reachy-mini:daemon looks through its camera', () => {
  let daemon: FakeDaemon;
  before(async () => {
    daemon = await startFakeDaemon();
  });
  after(() => daemon.close());

  const reset = (): void => {
    daemon.state.head = { roll: 0, pitch: 0, yaw: 0 };
    daemon.state.bodyYaw = 0;
    daemon.state.media.released = false;
    daemon.requests.length = 0;
  };

  it('look_around finds the ball where it is (±5°, ±15 %) from the robot\'s front; the camera is released before the first look and given back at close', async () => {
    reset();
    const camera = new HeadCamera(daemon);
    const eyes = { camera: new DaemonReleasedCamera(camera, new DaemonClient(daemon.url, 5000)), ball: SIM2D_BALL_LOOK };
    const body = await createDaemonBody({ seed: 0, settings: { base_url: daemon.url } }, eyes);
    try {
      const r = await body.perform({ verb: 'look_around', args: {} });
      assert.equal(r.ok, true, r.summary);
      const sightings = r.data?.['sightings'] as { thing: string; bearing_deg: number; distance_m: number }[];
      assert.equal(sightings.length, 1, r.summary);
      const [ball] = sightings;
      assert.equal(ball?.thing, 'ball');
      assert.ok(Math.abs(ball.bearing_deg - TRUTH.bearing) <= 5, `${r.summary}; truth ${TRUTH.bearing.toFixed(1)}°`);
      assert.ok(Math.abs(ball.distance_m / TRUTH.distance - 1) <= 0.15, `${r.summary}; truth ${TRUTH.distance.toFixed(2)} m`);
      assert.match(r.summary, /^looked all round, head level, and came back; camera: ball \d+° left, \d\.\d\d m$/);
      // One glance per stop of the sweep (-180° … 180° by 30°), each with the daemon's media released.
      assert.equal(camera.grabs, 13);
      assert.ok(camera.releasedAtGrab.every(Boolean), 'every frame taken after the release');
      const media = daemon.requests.filter((q) => q.path.startsWith('/api/media/')).map((q) => `${q.method} ${q.path}`);
      assert.deepEqual(media, ['GET /api/media/status', 'POST /api/media/release'], 'released once, before the first look');

      const quack = await body.perform({ verb: 'quack', args: {} });
      assert.equal(quack.ok, true, quack.summary);
      assert.match(quack.summary, /no sound \(the daemon's media is released to quackd's camera\)/);
    } finally {
      await body.close();
    }
    assert.equal(camera.closed, 1);
    assert.equal(daemon.state.media.released, false, 'the daemon has its camera back');
    assert.equal(daemon.requests.at(-1)?.path, '/api/media/acquire');
  });

  it('look points the head and says what the camera sees from there; a camera gone ends the verb with its line', async () => {
    reset();
    const camera = new HeadCamera(daemon, 2);
    const body = await createDaemonBody({ seed: 0, settings: { base_url: daemon.url } }, { camera, ball: SIM2D_BALL_LOOK });
    try {
      const seen = await body.perform({ verb: 'look', args: { yaw: 150 } });
      // The head alone reaches 65° from the body: the look is clamped, and sees what is there.
      assert.equal(seen.ok, true, seen.summary);
      assert.match(seen.summary, /camera: (nothing in view|ball .*)/);
      const turned = await body.perform({ verb: 'turn_body', args: { yaw: 150 } });
      assert.equal(turned.ok, false, turned.summary);
      assert.equal(turned.summary, 'camera /dev/video0 went away (ffmpeg exited 1)');
      assert.equal(turned.data?.['camera_failed'], 'gone');
      const again = await body.perform({ verb: 'look', args: { yaw: 150 } });
      assert.equal(again.ok, true, again.summary);
      const [ball] = again.data?.['sightings'] as { bearing_deg: number }[];
      assert.ok(ball !== undefined && Math.abs(ball.bearing_deg - TRUTH.bearing) <= 5, again.summary);
    } finally {
      await body.close();
    }
  });

  it('a camera: setting whose device is not there: the look fails in one line, nothing crashes, and the daemon gets its media back', async () => {
    reset();
    const body = await createDaemonBody({ seed: 0, settings: { base_url: daemon.url, camera: { device: '/dev/video-quackd-absent', deadline_ms: 2000 } } });
    try {
      const r = await body.perform({ verb: 'look', args: { yaw: 20 } });
      assert.equal(r.ok, false, r.summary);
      assert.doesNotMatch(r.summary, /\n/);
      assert.match(r.summary, /video-quackd-absent/);
      assert.equal(daemon.state.media.released, true, 'released before ffmpeg opened the device');
    } finally {
      await body.close();
    }
    assert.equal(daemon.state.media.released, false);
  });

  it('a daemon without media (--no-media) is asked to release nothing and given nothing back', async () => {
    reset();
    daemon.state.media.server = false;
    const camera = new HeadCamera(daemon);
    const body = await createDaemonBody({ seed: 0, settings: { base_url: daemon.url } }, { camera: new DaemonReleasedCamera(camera, new DaemonClient(daemon.url, 5000)), ball: SIM2D_BALL_LOOK });
    try {
      assert.equal((await body.perform({ verb: 'look', args: { yaw: 0 } })).ok, true);
    } finally {
      await body.close();
      daemon.state.media.server = true;
    }
    const media = daemon.requests.filter((q) => q.path.startsWith('/api/media/')).map((q) => `${q.method} ${q.path}`);
    assert.deepEqual(media, ['GET /api/media/status']);
  });
});
