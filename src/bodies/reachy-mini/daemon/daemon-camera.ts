/**
 * The Reachy Mini's own camera while its daemon runs: the daemon's media server owns the device
 * (it streams it over WebRTC), so before the first frame quackd asks it to let go (POST
 * /api/media/release, the call the SDK's `release_media()` makes) and then reads the device as
 * any camera (ffmpeg on Lite's USB camera, rpicam-vid on Wireless's), and gives it back (POST
 * /api/media/acquire) when the run closes its eyes. A daemon whose media is off, or already
 * released by someone else, is asked nothing and given nothing back. Nothing here moves the robot.
 */
import type { Camera, CameraFrame, CameraHealth, GrabOptions } from '../../../camera/camera.js';
import { DaemonError, type DaemonClient } from './client.js';
import { mediaStatus, parseAnswer } from './wire.js';

export class DaemonReleasedCamera implements Camera {
  readonly source: string;
  /** Whether this camera took the device from the daemon (and so owes it back). */
  private released = false;
  private taking: Promise<void> | undefined;

  constructor(
    private readonly device: Camera,
    private readonly client: DaemonClient,
  ) {
    this.source = device.source;
  }

  /** Whether the daemon's media was released by this camera and not yet given back. */
  get holdsDaemonMedia(): boolean {
    return this.released;
  }

  private async take(signal?: AbortSignal): Promise<void> {
    let status;
    try {
      status = parseAnswer(mediaStatus, await this.client.get('/api/media/status', signal), 'GET /api/media/status');
    } catch (err) {
      // A daemon older than media release (404) never held the camera: the device is free as it is.
      if (err instanceof DaemonError && err.status === 404) return;
      throw err;
    }
    if (!status.available) return;
    await this.client.post('/api/media/release', undefined, signal);
    this.released = true;
  }

  async grab(signal?: AbortSignal, options?: GrabOptions): Promise<CameraFrame> {
    this.taking ??= this.take(signal).catch((err: unknown) => {
      this.taking = undefined; // asked again at the next grab
      throw err;
    });
    await this.taking;
    return this.device.grab(signal, options);
  }

  health(): Promise<CameraHealth> {
    return this.device.health();
  }

  async close(): Promise<void> {
    await this.device.close();
    this.taking = undefined;
    if (!this.released) return;
    this.released = false;
    try {
      await this.client.post('/api/media/acquire');
    } catch {
      // A daemon gone by now re-acquires its media when it starts again; nothing is left held here.
    }
  }
}
