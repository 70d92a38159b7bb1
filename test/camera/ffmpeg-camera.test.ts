import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CameraError, type GrabOptions } from '../../src/camera/camera.js';
import { ffmpegArgs, ffmpegCamera, v4l2Input } from '../../src/camera/ffmpeg-camera.js';
import { openCamera } from '../../src/camera/open-camera.js';
import { PipeCamera } from '../../src/camera/pipe-camera.js';
import { CameraSettingsSchema } from '../../src/camera/settings.js';
import { i420Bytes, i420ToRgb } from '../../src/camera/yuv.js';
import { tempDir } from '../helpers/tmp.js';

const settings = { device: '/dev/video-test', width: 64, height: 48, fps: 5, deadline_ms: 3000 };
/** A red picture at 25 fps, in real time (-re), as a webcam would send. */
const redSource = ['-re', '-f', 'lavfi', '-i', 'color=c=red:size=160x120:rate=25'];
const dir = tempDir('quackd-camera-');

async function rejection(promise: Promise<unknown>): Promise<CameraError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof CameraError, `not a CameraError: ${String(error)}`);
    return error;
  }
  assert.fail('the grab resolved');
}

describe('camera through ffmpeg', () => {
  it('reads a V4L2 device at the size asked, rgb24 at the capped rate, dropping frames over the cap and never repeating one', () => {
    assert.deepEqual(v4l2Input('/dev/video0', 640, 480), ['-f', 'v4l2', '-video_size', '640x480', '-i', '/dev/video0']);
    const args = ffmpegArgs(['-i', 'x'], 640, 480, 5);
    assert.deepEqual(args.slice(-10), ['scale=640:480', '-fps_mode', 'vfr', '-r', '5', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1']);
  });

  it('grabs frames scaled to the configured size, the picture as sent', async () => {
    const camera = ffmpegCamera(settings, redSource);
    try {
      const first = await camera.grab();
      const second = await camera.grab();
      assert.equal(first.width, 64);
      assert.equal(first.rgb.length, 64 * 48 * 3);
      assert.ok(second.at >= first.at);
      const [r, g, b] = [first.rgb[0] ?? 0, first.rgb[1] ?? 0, first.rgb[2] ?? 0];
      assert.ok(r > 240 && g < 16 && b < 16, `a red pixel, got ${r},${g},${b}`);
      assert.equal((await camera.health()).status, 'ok');
    } finally {
      await camera.close();
    }
  });

  it('a camera that goes away mid-run fails the grab in one line; the next grab starts it again', async () => {
    const camera = ffmpegCamera(settings, redSource);
    try {
      await camera.grab();
      const pid = camera.pid;
      assert.ok(pid !== undefined);
      const waiting = camera.grab();
      process.kill(pid, 'SIGKILL');
      const error = await rejection(waiting);
      assert.equal(error.kind, 'gone');
      assert.equal(error.message, 'camera /dev/video-test: ffmpeg killed by SIGKILL');
      const again = await camera.grab();
      assert.equal(again.rgb.length, 64 * 48 * 3);
    } finally {
      await camera.close();
    }
    assert.equal(camera.pid, undefined);
  });

  it('a device that is not there is a gone camera, with what ffmpeg said', async () => {
    const camera = ffmpegCamera({ ...settings, device: join(dir, 'video9') });
    try {
      const error = await rejection(camera.grab());
      assert.equal(error.kind, 'gone');
      assert.match(error.message, /^camera .*video9: ffmpeg exited with code \d+: .*video9.*No such file or directory/);
      const health = await camera.health();
      assert.equal(health.status, 'fail');
      assert.doesNotMatch(health.detail, /\n/);
    } finally {
      await camera.close();
    }
  });

  it('a frame that never comes is a timeout at the deadline (the first, with the start in it, at twice it)', async () => {
    // A FIFO no one writes: ffmpeg waits on it as on a stalled camera.
    const fifo = join(dir, 'stalled');
    execFileSync('mkfifo', [fifo]);
    const camera = ffmpegCamera({ ...settings, deadline_ms: 400 }, ['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-video_size', '64x48', '-i', fifo]);
    try {
      const started = Date.now();
      const error = await rejection(camera.grab());
      assert.equal(error.kind, 'timeout');
      assert.equal(error.message, 'camera /dev/video-test: no first frame within 800 ms of starting');
      const waited = Date.now() - started;
      assert.ok(waited >= 790 && waited < 2500, `failed after ${waited} ms`);
    } finally {
      await camera.close();
    }
  });

  it('a grab takes a frame made after it, not the one in flight; a film takes the next to come', async () => {
    // A camera whose frames are one byte each, a second apart: 1, then 2, then 3.
    const frames = (): PipeCamera => new PipeCamera({ source: 'test', command: 'sh', args: ['-c', "printf '\\001'; sleep 1; printf '\\002'; sleep 1; printf '\\003'; sleep 5"], install: 'sh', width: 1, height: 1, frameBytes: 1, toRgb: (raw) => Uint8Array.from(raw), deadlineMs: 4000 });
    const [look, film] = [frames(), frames()];
    try {
      // The grab that starts a camera takes its first frame: nothing was made before it. The next
      // grab, asked at once, may see frame 2 come whole within a second of it: made before it, or not.
      const twice = async (camera: PipeCamera, options?: GrabOptions): Promise<number[]> => [(await camera.grab()).rgb[0] ?? 0, (await camera.grab(undefined, options)).rgb[0] ?? 0];
      assert.deepEqual(await Promise.all([twice(look), twice(film, { take: 'next' })]), [
        [1, 3],
        [1, 2],
      ]);
    } finally {
      await look.close();
      await film.close();
    }
  });

  it('a short frame is a corrupt one, never half a picture', async () => {
    const camera = new PipeCamera({ source: 'test', command: 'head', args: ['-c', '1000', '/dev/zero'], install: 'coreutils', width: 64, height: 48, frameBytes: 64 * 48 * 3, deadlineMs: 3000 });
    const error = await rejection(camera.grab());
    assert.equal(error.kind, 'corrupt');
    assert.equal(error.message, 'camera test: a short frame (1000 of 9216 bytes), then the camera stopped');
    await camera.close();
  });

  it('a program that is not installed says what to install', async () => {
    const camera = new PipeCamera({ source: 'rpicam', command: 'rpicam-vid-not-here', args: [], install: 'apt install rpicam-apps', width: 64, height: 48, frameBytes: 9216, deadlineMs: 3000 });
    const error = await rejection(camera.grab());
    assert.equal(error.kind, 'missing');
    assert.equal(error.message, 'camera rpicam: rpicam-vid-not-here is not installed (apt install rpicam-apps)');
    await camera.close();
  });

  it('synthetic outside a simulator is refused; config fills the defaults', async () => {
    const parsed = CameraSettingsSchema.parse({ device: 'synthetic' });
    assert.deepEqual(parsed, { device: 'synthetic', width: 640, height: 480, fov_deg: 62, fps: 5, deadline_ms: 3000, mount: { height_m: 0.15, pitch_deg: 0, ahead_m: 0 } });
    const error = await rejection(openCamera(parsed));
    assert.equal(error.kind, 'missing');
    assert.equal(CameraSettingsSchema.safeParse({ device: 'video0' }).success, false);
  });
});

describe('the Pi camera\'s I420 frames', () => {
  const cases: [string, [number, number, number], [number, number, number]][] = [
    ['black', [16, 128, 128], [0, 0, 0]],
    ['white', [235, 128, 128], [255, 255, 255]],
    ['red', [81, 90, 240], [255, 0, 0]],
    ['green', [145, 54, 34], [0, 255, 0]],
    ['blue', [41, 240, 110], [0, 0, 255]],
  ];
  for (const [name, [y, u, v], want] of cases) {
    it(`${name} (BT.601 limited range) reads as ${want.join(',')}`, () => {
      const frame = new Uint8Array(i420Bytes(4, 2));
      frame.fill(y, 0, 8);
      frame.fill(u, 8, 10);
      frame.fill(v, 10, 12);
      const rgb = i420ToRgb(frame, 4, 2);
      for (let i = 0; i < 3; i++) assert.ok(Math.abs((rgb[i] ?? 0) - want[i]!) <= 3, `${name}: ${Array.from(rgb.slice(0, 3)).join(',')}`);
      assert.equal(rgb.length, 24);
    });
  }
  it('an odd size rounds the chroma planes up', () => assert.equal(i420Bytes(5, 3), 15 + 2 * 3 * 2));
});
