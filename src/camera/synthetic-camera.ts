/**
 * A simulator's camera: each grab renders what the robot's lens would see now (the simulator
 * gives the renderer), so the detectors and everything after them run in CI and in demos on
 * the same path as a real camera's frames. Verbs in a simulator are instant, so rendering at the
 * grab is rendering between ticks.
 */
import { CameraError, type Camera, type CameraFrame, type CameraHealth } from './camera.js';

/** What the simulator draws: the picture of its world from the camera's pose now. */
export type RenderView = () => Omit<CameraFrame, 'at'>;

export class SyntheticCamera implements Camera {
  readonly source = 'synthetic';
  private closed = false;

  constructor(private readonly render: RenderView) {}

  grab(): Promise<CameraFrame> {
    if (this.closed) return Promise.reject(new CameraError('gone', 'camera synthetic is closed'));
    return Promise.resolve({ ...this.render(), at: Date.now() });
  }

  async health(): Promise<CameraHealth> {
    const frame = await this.grab().catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
    return typeof frame === 'string' ? { status: 'fail', detail: frame } : { status: 'ok', detail: `camera synthetic: ${frame.width}×${frame.height}, rendered by the simulator` };
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}
