/**
 * The recording's camera film: while a run has a camera, a frame every 1/fps seconds, shrunk and
 * JPEG'd on the encoder's own thread, goes to the recording's /camera topic beside the
 * snapshots. It never waits in anyone's way: a frame still being grabbed or encoded when the
 * next is due is skipped, and a camera that fails is counted, never the run's failure (the verbs
 * that need the camera say so themselves). Both counts go in the recording's summary.
 */
import { CameraError, type Camera } from '../camera/camera.js';
import { logger } from '../log.js';
import { PictureEncoder } from '../vision/picture-encoder.js';

/** Recorded frames are this wide: enough to see a ball in Foxglove, few bytes a minute. */
export const FILM_WIDTH = 320;

export interface FilmCounts {
  readonly camera_frames: number;
  readonly camera_skipped: number;
  readonly camera_failed: number;
}

export class CameraFilm {
  private readonly encoder = new PictureEncoder();
  private readonly stopping = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private busy: Promise<void> | undefined;
  private frames = 0;
  private skipped = 0;
  private failed = 0;

  constructor(
    private readonly camera: Camera,
    fps: number,
    private readonly onFrame: (jpeg: Uint8Array, epochMs: number) => void,
  ) {
    this.timer = setInterval(() => this.shoot(), 1000 / fps);
    this.timer.unref();
  }

  private shoot(): void {
    if (this.busy !== undefined) {
      this.skipped += 1;
      return;
    }
    this.busy = (async () => {
      try {
        const frame = await this.camera.grab(this.stopping.signal, { take: 'next' });
        const jpeg = await this.encoder.encode(frame, FILM_WIDTH);
        if (this.stopping.signal.aborted) return;
        this.onFrame(jpeg, frame.at);
        this.frames += 1;
      } catch (err) {
        if (this.stopping.signal.aborted) return;
        this.failed += 1;
        // A camera gone is counted (its verbs say it); anything else is also worth a line in the log.
        if (!(err instanceof CameraError)) logger('recording').warn({ err }, 'a camera frame was not recorded');
      } finally {
        this.busy = undefined;
      }
    })();
  }

  /** Stops filming: the frame in flight is dropped, the encoder's thread ends; what was filmed is counted. */
  async stop(): Promise<FilmCounts> {
    clearInterval(this.timer);
    this.stopping.abort();
    // The encoder's end rejects a picture still being made, so the frame in flight settles at once.
    await this.encoder.close();
    await this.busy;
    return { camera_frames: this.frames, camera_skipped: this.skipped, camera_failed: this.failed };
  }
}
