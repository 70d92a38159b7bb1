/**
 * The host firmware standing on the MuJoCo twin: quackd-fw-host with `--plant` (hal/host/plant.h)
 * is the duck's servo bus and IMU, and the twin is its body. Every 20 ms of wall clock the twin
 * steps one control period on the goals the firmware last wrote, and its joints and trunk IMU go
 * back into the shared file the firmware reads. A network camera (mjpeg-camera.ts) shows the
 * twin's head camera's view of the room, so the duck quackd drives over the bridge sees, walks
 * and kicks the twin's ball (twin-camera-worker.ts: 320×240 at 2 frames a second by default,
 * which is what a rendered frame costs this process's other thread on a busy machine). A servo with torque off takes no new goal and the twin's keeps
 * holding the last one it had (a duck never goes limp here, as in the servo twin): the firmware's
 * own boot pose (duck.c's, another robot's home) never drags the twin's duck out of its stance,
 * and torque on holds the pose it finds. Tests read where the twin went (trunk(), ball()).
 */
import { mkdtempSync, openSync, closeSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMujocoPlant, type MujocoPlant } from '../../src/bodies/microduck/mujoco/plant.js';
import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '../../src/worker-thread.js';
import { runThisProcessAsHardware } from '../helpers/hardware-priority.js';
import { TwinRig } from '../helpers/twin-rig.js';
import type { TwinCameraOptions, TwinView } from './twin-camera-worker.js';
import { Rig } from './rig.js';
import { FILE_BYTES, GOALS_AT, GOALS_BYTES, JOINTS, STATE_AT, STATE_BYTES } from './plant-file.js';

const G = 9.81;

export interface FirmwareTwinOptions {
  /** sim2d's layout seed: where the duck stands and the ball lies. */
  readonly seed: number;
  /** More quackd-fw-host arguments. */
  readonly firmware?: readonly string[];
  readonly camera?: Partial<TwinCameraOptions>;
}

/**
 * The duck's `camera:` setting for the twin's stream, as its head camera sits when the duck
 * stands after a gait (measured in the twin: 0.22–0.25 m up, tipped 30° + 0–13° down with the
 * trunk's sway, 0.09–0.12 m ahead of the trunk): a setting says one mount, the head sways.
 */
export function twinCameraSetting(url: string, camera: Partial<TwinCameraOptions> = {}): string {
  const { width, height, fps } = { ...CAMERA_DEFAULTS, ...camera };
  return `{ device: ${JSON.stringify(url)}, width: ${width}, height: ${height}, fps: ${fps}, fov_deg: 90, mount: { height_m: 0.23, pitch_deg: 40, ahead_m: 0.11 } }`;
}

const CAMERA_DEFAULTS: TwinCameraOptions = { width: 320, height: 240, fps: 2 };

/** The camera's thread, and the address of its stream once it serves. */
async function startCamera(options: Partial<TwinCameraOptions> = {}): Promise<{ worker: Worker; url: string }> {
  const workerData: TwinCameraOptions = { ...CAMERA_DEFAULTS, ...options };
  const worker = spawnWorker(new URL('./twin-camera-worker.ts', import.meta.url), { workerData });
  const url = await new Promise<string>((resolve, reject) => {
    worker.once('message', (m: { url: string }) => resolve(m.url));
    worker.once('error', reject);
  });
  return { worker, url };
}

export class FirmwareTwin extends TwinRig {
  private seq = 0;
  private readonly goalBuf = Buffer.alloc(GOALS_BYTES);
  private readonly stateBuf = Buffer.alloc(STATE_BYTES);
  /** Whole goal records taken from the firmware with torque on: what reached the twin over the bridge. */
  goalWrites = 0;
  private lastGoalSeq = 0;

  private constructor(
    readonly rig: Rig,
    plant: MujocoPlant,
    private readonly cameraThread: Worker,
    /** The network camera's stream: the robot's `camera: { device: … }`. */
    readonly cameraUrl: string,
    private readonly dir: string,
    private readonly fd: number,
  ) {
    super(plant, Float64Array.from(plant.read()?.jointPos ?? new Float64Array(JOINTS)));
  }

  static async start(options: FirmwareTwinOptions): Promise<FirmwareTwin> {
    const plant = await openMujocoPlant({ seed: options.seed });
    // After MuJoCo's start (its WebAssembly is compiled by threads main waits for: under SCHED_FIFO
    // beside busy processes that wait spun for minutes), before the camera's thread, which stays normal.
    runThisProcessAsHardware();
    const dir = mkdtempSync(join(tmpdir(), 'quackd-fw-twin-'));
    const file = join(dir, 'plant.bin');
    const fd = openSync(file, 'w+');
    writeSync(fd, Buffer.alloc(FILE_BYTES), 0, FILE_BYTES, 0);
    let twin: FirmwareTwin;
    const camera = await startCamera(options.camera);
    try {
      const rig = await Rig.start(['--plant', file, ...(options.firmware ?? [])]);
      twin = new FirmwareTwin(rig, plant, camera.worker, camera.url, dir, fd);
    } catch (err) {
      await camera.worker.terminate();
      closeSync(fd);
      plant.close();
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
    twin.run();
    return twin;
  }

  /** The near end of the pty: the robot's `port`. */
  get port(): string {
    return this.rig.hostPath;
  }

  ball(): ReturnType<MujocoPlant['ball']> {
    return this.plant.ball();
  }

  /** What the head camera needs to render: where it is, and the ball. */
  private view(): TwinView {
    const camera = this.plant.camera();
    return { ball: { ...this.plant.ball() }, camera: camera === undefined ? null : { ...camera } };
  }


  /** The firmware's newest whole goal record (a torn one is left for the next step). */
  protected override takeGoals(): void {
    const b = this.goalBuf;
    if (readSync(this.fd, b, 0, GOALS_BYTES, GOALS_AT) !== GOALS_BYTES) return;
    const seq = b.readUInt32LE(0);
    if (seq === 0 || seq !== b.readUInt32LE(GOALS_BYTES - 4) || seq === this.lastGoalSeq) return;
    this.lastGoalSeq = seq;
    if (b.readUInt32LE(4) === 0) return;
    for (let i = 0; i < JOINTS; i++) this.goals[i] = b.readFloatLE(8 + 4 * i);
    this.goalWrites += 1;
  }

  /** The twin's joints and trunk IMU into the firmware's record; the accelerometer reads gravity's reaction. */
  protected publish(): void {
    const f = this.plant.read();
    if (f === undefined) return;
    const b = this.stateBuf;
    this.seq += 1;
    b.writeUInt32LE(this.seq, 0);
    const values = [...f.jointPos, ...f.jointVel, ...f.gyro, ...f.gravity.map((g) => -g * G)];
    values.forEach((v, i) => b.writeFloatLE(v, 4 + 4 * i));
    b.writeUInt32LE(this.seq, STATE_BYTES - 4);
    writeSync(this.fd, b, 0, STATE_BYTES, STATE_AT);
    this.cameraThread.postMessage({ view: this.view() });
  }

  async close(): Promise<void> {
    this.stopClock();
    await this.cameraThread.terminate();
    await this.rig.cleanup();
    this.plant.close();
    closeSync(this.fd);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
