/**
 * The firmware twin's network camera, in a thread of its own: the rig's process runs its physics
 * under SCHED_FIFO, and rendering and JPEG-encoding frames there would take the CPU from
 * everything else on a busy machine (this thread is made after the rig raised its priority, so
 * reset-on-fork leaves it at normal priority). The twin posts where the head camera is and where
 * the ball is after each step; each frame shows the newest.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { TwinWorld } from '../../src/bodies/microduck/mujoco/control-plant.js';
import { TWIN_LENS } from '../../src/bodies/microduck/mujoco/twin-camera.js';
import { renderView } from '../../src/bodies/microduck/sim2d/view.js';
import { MjpegCamera } from '../helpers/mjpeg-camera.js';

export interface TwinCameraOptions {
  readonly width: number;
  readonly height: number;
  readonly fps: number;
}

export type TwinView = Pick<TwinWorld, 'camera' | 'ball'>;

const options = workerData as TwinCameraOptions;
const lens = { ...TWIN_LENS, width: options.width, height: options.height };
let view: TwinView | undefined;

/** As renderTwinView, at this camera's size: a camera looking at the sky or the floor sees a grey nothing. */
function render(): { width: number; height: number; rgb: Uint8Array } {
  const cam = view?.camera ?? null;
  if (view === undefined || cam === null) return { width: lens.width, height: lens.height, rgb: new Uint8Array(lens.width * lens.height * 3).fill(90) };
  const tipped = { ...lens, mount: { ...lens.mount, pitch_deg: lens.mount.pitch_deg + (cam.pitch * 180) / Math.PI } };
  return renderView({ x: cam.x, y: cam.y, heading: cam.heading }, view.ball, tipped, cam.z);
}

const camera = await MjpegCamera.start(render, options.fps);
parentPort?.on('message', (m: { view: TwinView }) => {
  view = m.view;
});
parentPort?.postMessage({ url: camera.url });
