/**
 * The colour detector and the camera's cost. Cases:
 *   plain    one pass over a 640×480 frame's bytes (their sum): the baseline, in the same run;
 *   ball     detectBall on sim2d's synthetic frames (the ball 0.5–3 m off, anywhere in view);
 *   empty    detectBall on a frame with no ball (the mask pass alone, nothing to measure);
 * each median and p99 per frame, and as a ratio to the plain pass. Then `snapshot`'s picture:
 * the same frames shrunk to 512 px and JPEG-encoded, its time and its bytes (the JPEG, and the
 * base64 a request carries: the bytes sent to the model per snapshot). Then the camera: ffmpeg
 * making 640×480 rgb24 at 5 fps from a synthetic 30 fps source while the grabs read them, the
 * CPU of ffmpeg (from /proc) and of this process over the time, as % of one core.
 *
 *   node --import tsx bench/vision.ts [--runs N] [--seconds S]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { BALL_RADIUS, rad } from '../src/bodies/microduck/sim2d/arena.js';
import { renderView, SIM2D_LENS } from '../src/bodies/microduck/sim2d/view.js';
import type { CameraFrame } from '../src/camera/camera.js';
import { ffmpegCamera } from '../src/camera/ffmpeg-camera.js';
import { detectBall, ORANGE } from '../src/vision/ball.js';
import { DEFAULT_PICTURE_WIDTH, encodePicture } from '../src/vision/picture.js';
import { fmt, median, percentile } from './_stats.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '300' }, seconds: { type: 'string', default: '6' } } });
const RUNS = Number(values.runs);
const SECONDS = Number(values.seconds);
const look = { lens: SIM2D_LENS, colour: ORANGE, diameter_m: 2 * BALL_RADIUS };

// Eight scenes: the duck at the room's middle, the ball at 0.5–3 m and −25…25°.
const frames: CameraFrame[] = [];
for (let i = 0; i < 8; i++) {
  const d = 0.5 + (i * 2.5) / 7;
  const b = rad(-25 + (i * 50) / 7);
  const duck = { x: 1, y: 2, heading: 0 };
  frames.push({ ...renderView(duck, { x: 1 + d * Math.cos(b), y: 2 + d * Math.sin(b) }), at: 0 });
}
const empty: CameraFrame = { ...renderView({ x: 1, y: 2, heading: Math.PI }, { x: 4, y: 1 }), at: 0 };

let sink = 0;
function plain(frame: CameraFrame): void {
  let sum = 0;
  const rgb = frame.rgb;
  for (let i = 0; i < rgb.length; i++) sum += rgb[i]!;
  sink += sum;
}

function time(run: (frame: CameraFrame) => void, pick: (i: number) => CameraFrame): { p50: number; p99: number } {
  for (let i = 0; i < 20; i++) run(pick(i));
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const frame = pick(i);
    const t = performance.now();
    run(frame);
    ms.push(performance.now() - t);
  }
  return { p50: median(ms), p99: percentile(ms, 99) };
}

const pickBall = (i: number): CameraFrame => frames[i % frames.length]!;
const base = time(plain, pickBall);
const ball = time((f) => void (sink += detectBall(f, look)?.pixels ?? 0), pickBall);
const none = time((f) => void (sink += detectBall(f, look)?.pixels ?? 0), () => empty);
console.log(`detection per 640×480 frame, ${RUNS} runs each (median / p99, ratio of medians to the plain pass):`);
console.log(`  plain pass   ${fmt(base.p50, 2)} / ${fmt(base.p99, 2)} ms   1.0×`);
console.log(`  ball         ${fmt(ball.p50, 2)} / ${fmt(ball.p99, 2)} ms   ${fmt(ball.p50 / base.p50)}×`);
console.log(`  no ball      ${fmt(none.p50, 2)} / ${fmt(none.p99, 2)} ms   ${fmt(none.p50 / base.p50)}×`);
if (sink === -1) console.log('');

const jpegBytes = frames.map((f) => encodePicture(f).jpeg.length);
const base64Bytes = jpegBytes.map((n) => 4 * Math.ceil(n / 3));
const encode = time((f) => void (sink += encodePicture(f).jpeg.length), pickBall);
console.log(`snapshot's picture (${DEFAULT_PICTURE_WIDTH} px wide, JPEG), ${frames.length} scenes:`);
console.log(`  shrink + encode ${fmt(encode.p50, 1)} / ${fmt(encode.p99, 1)} ms   ${fmt(encode.p50 / base.p50)}× the plain pass`);
console.log(`  bytes per snapshot: JPEG median ${fmt(median(jpegBytes) / 1000, 1)} kB (max ${fmt(Math.max(...jpegBytes) / 1000, 1)}); sent as base64 ${fmt(median(base64Bytes) / 1000, 1)} kB`);

/** utime + stime of a process, in seconds (Linux /proc). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const camera = ffmpegCamera({ device: 'testsrc', width: 640, height: 480, fps: 5, deadline_ms: 5000 }, ['-re', '-f', 'lavfi', '-i', 'testsrc=size=640x480:rate=30']);
try {
  await camera.grab();
  const pid = camera.pid;
  if (pid === undefined) throw new Error('ffmpeg is not running');
  const startChild = cpuSeconds(pid);
  const startSelf = process.cpuUsage();
  const started = performance.now();
  let grabbed = 0;
  while (performance.now() - started < SECONDS * 1000) {
    await camera.grab();
    grabbed++;
  }
  const wall = (performance.now() - started) / 1000;
  const self = process.cpuUsage(startSelf);
  const child = cpuSeconds(pid) - startChild;
  console.log(`camera at 5 fps (ffmpeg, 640×480 rgb24 from a 30 fps testsrc), ${fmt(wall)} s, ${grabbed} frames grabbed (${fmt(grabbed / wall)} fps):`);
  console.log(`  ffmpeg ${fmt((100 * child) / wall)} % of one core; this process reading the frames ${fmt((100 * (self.user + self.system)) / 1e6 / wall)} % (goal: ≤ 10 % together)`);
} catch (error) {
  console.log(`camera: skipped (${error instanceof Error ? error.message : String(error)})`);
} finally {
  await camera.close();
}
