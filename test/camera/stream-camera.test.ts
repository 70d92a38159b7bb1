/**
 * A network camera's stream (`camera: { device: http://… }`), as an ESP32-CAM or an IP camera
 * serves one: MJPEG over HTTP from a loopback server (test/helpers/mjpeg-camera.ts), read by the
 * same ffmpeg camera as a webcam, through openCamera as a robot's setting names it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CameraError, type CameraFrame } from '../../src/camera/camera.js';
import { cameraLabel, isStreamUrl, streamInput } from '../../src/camera/ffmpeg-camera.js';
import { openCamera } from '../../src/camera/open-camera.js';
import { CameraSettingsSchema } from '../../src/camera/settings.js';
import { MjpegCamera } from '../helpers/mjpeg-camera.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';
import { onPath } from '../helpers/pty-pair.js';

const skip = onPath('ffmpeg') || process.env['CI'] === 'true' ? undefined : 'needs ffmpeg';

/** A 160×120 picture: blue on the left half, yellow on the right. */
function halves(): Omit<CameraFrame, 'at'> {
  const [w, h] = [160, 120];
  const rgb = new Uint8Array(w * h * 3);
  for (let i = 0; i < w * h; i++) rgb.set(i % w < w / 2 ? [20, 40, 230] : [240, 220, 20], i * 3);
  return { width: w, height: h, rgb };
}

const pixel = (f: CameraFrame, col: number, row: number): number[] => [...f.rgb.subarray((row * f.width + col) * 3, (row * f.width + col) * 3 + 3)];
const near = (a: number[], b: number[]): boolean => a.every((v, i) => Math.abs(v - (b[i] ?? 0)) < 40);

describe('a network camera in the config', () => {
  it('config check shows the stream with its password hidden', async () => {
    const home = tempDir('quackd-stream-home-');
    writeFileSync(join(home, 'config.yaml'), 'robots:\n  duck: { body: microduck:jsonrpc, port: /dev/ttyACM0, camera: { device: "http://admin:hunter2@192.168.1.40:81/stream" } }\n');
    const r = await quackd(['config', 'check'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /camera device=http:\/\/admin:\*\*\*@192\.168\.1\.40:81\/stream /);
    assert.doesNotMatch(r.stdout + r.stderr, /hunter2/);
  });
});

describe('a network camera (MJPEG over HTTP) through ffmpeg', { skip }, () => {
  let stream: MjpegCamera;
  before(async () => {
    stream = await MjpegCamera.start(halves, 10);
  });
  after(async () => {
    await stream?.close();
  });

  it('is a camera setting: http:// and rtsp:// streams, and a line that never shows its password', () => {
    for (const device of ['http://192.168.1.40:81/stream', 'rtsp://cam.local:554/live']) assert.equal(CameraSettingsSchema.parse({ device }).device, device);
    assert.throws(() => CameraSettingsSchema.parse({ device: 'ftp://x/y' }), /a stream \(http:\/\/… or rtsp:\/\/…\)/);
    assert.equal(isStreamUrl('/dev/video0'), false);
    assert.equal(cameraLabel('http://admin:hunter2@192.168.1.40/stream'), 'http://admin:***@192.168.1.40/stream');
    assert.deepEqual(streamInput('rtsp://cam/live', 3000).slice(0, 2), ['-rtsp_transport', 'tcp']);
  });

  it('grabs frames scaled to the configured size, the picture as sent', async () => {
    const camera = await openCamera(CameraSettingsSchema.parse({ device: stream.url, width: 80, height: 60, fps: 5 }));
    try {
      const frame = await camera.grab();
      assert.equal(camera.source, stream.url);
      assert.deepEqual([frame.width, frame.height, frame.rgb.length], [80, 60, 80 * 60 * 3]);
      assert.ok(near(pixel(frame, 10, 30), [20, 40, 230]), `blue on the left, got ${pixel(frame, 10, 30).join(',')}`);
      assert.ok(near(pixel(frame, 70, 30), [240, 220, 20]), `yellow on the right, got ${pixel(frame, 70, 30).join(',')}`);
      const next = await camera.grab();
      assert.ok(next.at > frame.at, 'each grab is a frame made after it was asked for');
    } finally {
      await camera.close();
    }
  });

  /** Grabs at different points of the frame period; each one that got a frame sent before it was asked for, said. */
  async function staleGrabs(streamFps: number, capFps: number): Promise<string[]> {
    // Each frame is one grey, its number's: which frame a grab got is read off its pixels.
    const shades = 40;
    let made = 0;
    const numbered = await MjpegCamera.start(() => ({ width: 64, height: 48, rgb: new Uint8Array(64 * 48 * 3).fill((made++ % shades) * 6) }), streamFps);
    const camera = await openCamera(CameraSettingsSchema.parse({ device: numbered.url, width: 64, height: 48, fps: capFps }));
    const period = 1000 / streamFps;
    try {
      await camera.grab();
      const early: string[] = [];
      for (let i = 0; i < 8; i++) {
        // Asked at a different point of the frame period each time.
        await sleep(period * (0.18 + 0.26 * i));
        const asked = Date.now();
        const frame = await camera.grab();
        const shade = Math.round((pixel(frame, 32, 24)[0] ?? 0) / 6);
        // The newest frame sent with this shade is the one the grab got.
        const number = [...numbered.sentAt.keys()].filter((n) => n % shades === shade).at(-1) ?? -1;
        const sentAt = numbered.sentAt.get(number) ?? 0;
        // A frame ffmpeg had begun reading as the grab was asked may be a few ms older than it.
        if (sentAt < asked - 50) early.push(`frame ${number} sent ${asked - sentAt} ms before the grab`);
      }
      return early;
    } finally {
      await camera.close();
      await numbered.close();
    }
  }

  it('a grab is a frame sent after it was asked for, never one ffmpeg held back (a scan step looks at the turn done)', async () => {
    assert.deepEqual(await staleGrabs(2, 2), []);
  });

  it('a stream that stops sending fails the grab in one line by its deadline; one that is gone says so', async () => {
    const frozen = await MjpegCamera.start(halves, 10);
    const url = frozen.url;
    const camera = await openCamera(CameraSettingsSchema.parse({ device: url, width: 80, height: 60, deadline_ms: 3000 }));
    try {
      await camera.grab();
      frozen.stall();
      // A frame already on its way (sent, or held by ffmpeg) may still come: seen under load. Then nothing does.
      let stalled: unknown;
      let waited = 0;
      for (let i = 0; i < 3 && !(stalled instanceof CameraError); i++) {
        const t0 = performance.now();
        stalled = await camera.grab().then(() => undefined, (e: unknown) => e);
        waited = performance.now() - t0;
      }
      assert.ok(stalled instanceof CameraError, `stalled: ${String(stalled)}`);
      assert.equal(stalled.message.split('\n').length, 1);
      assert.ok(waited < 6000, `failed after ${Math.round(waited)} ms: within about its deadline (3 s)`);
      await frozen.close();
      // ffmpeg may still hand over a frame it held when the stream ended; then it fails, and does again.
      let gone: unknown;
      for (let i = 0; i < 3 && !(gone instanceof CameraError); i++) gone = await camera.grab().then(() => undefined, (e: unknown) => e);
      assert.ok(gone instanceof CameraError, `gone: ${String(gone)}`);
      assert.ok(gone.message.includes(url), gone.message);
      assert.equal(gone.message.split('\n').length, 1);
    } finally {
      await camera.close();
      await frozen.close();
    }
  });
});
