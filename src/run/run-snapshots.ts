/**
 * A run's `snapshot`s: grab the body's camera frame, put what the colour detector finds in it into
 * words, shrink and JPEG it for the model, and save it beside the transcript
 * (`<transcripts>/<run id>/snapshot-N.jpg`, 0600), where the verb's transcript line names it; the
 * picture's bytes never go into the transcript itself. A camera that fails ends the verb with its
 * one line. Written by libuv's threadpool, as the transcript is: the event loop also sends the
 * bridge's heartbeats.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BodyEyes, VerbResult } from '../bodies/body.js';
import { CameraError } from '../camera/camera.js';
import { describeSighting, detectBall } from '../vision/ball.js';
import { DEFAULT_PICTURE_WIDTH, encodePicture } from '../vision/picture.js';

export interface RunSnapshotsOptions {
  readonly eyes: BodyEyes;
  /** The transcripts' folder: this run's pictures go in `<dir>/<runId>/`. */
  readonly transcriptsDir: string;
  readonly runId: string;
  /** The widest picture the model is sent (pilot.image_width). */
  readonly width?: number;
  /** Each picture taken, when it was grabbed (the run's recording keeps it). */
  readonly onPicture?: (jpeg: Uint8Array, epochMs: number) => void;
}

const kB = (bytes: number): string => `${(bytes / 1000).toFixed(1)} kB`;

export class RunSnapshots {
  private taken = 0;

  constructor(private readonly options: RunSnapshotsOptions) {}

  async take(signal?: AbortSignal): Promise<VerbResult> {
    const { eyes, runId } = this.options;
    let frame;
    try {
      frame = await eyes.camera.grab(signal);
    } catch (error) {
      if (error instanceof CameraError) return { ok: false, summary: error.message, data: { camera_failed: error.kind } };
      throw error;
    }
    const seen = detectBall(frame, eyes.ball);
    const picture = encodePicture(frame, this.options.width ?? DEFAULT_PICTURE_WIDTH);
    this.taken += 1;
    this.options.onPicture?.(picture.jpeg, frame.at);
    const file = `${runId}/snapshot-${this.taken}.jpg`;
    const saved = await this.save(file, picture.jpeg);
    const words = `camera: ${describeSighting(seen)}`;
    return {
      ok: true,
      summary: `picture ${picture.width}×${picture.height}, ${kB(picture.jpeg.length)}; ${words}${saved === undefined ? '' : ` (not saved: ${saved})`}`,
      data: {
        ...(saved === undefined ? { picture_file: file } : { picture_unsaved: saved }),
        picture_width: picture.width,
        picture_height: picture.height,
        jpeg_bytes: picture.jpeg.length,
        ball_visible: seen !== undefined,
        ...(seen !== undefined ? { ball_bearing_deg: Math.round(seen.bearing_deg), ball_distance_m: Math.round(seen.distance_m * 100) / 100, ball_pixels: seen.pixels } : {}),
        measured_by: 'camera',
      },
      picture: { mediaType: 'image/jpeg', base64: Buffer.from(picture.jpeg).toString('base64'), width: picture.width, height: picture.height },
    };
  }

  /** Undefined once the file is written; else why not (a full disk loses the file, not the run). */
  private async save(file: string, bytes: Uint8Array): Promise<string | undefined> {
    try {
      await mkdir(join(this.options.transcriptsDir, this.options.runId), { recursive: true, mode: 0o700 });
      await writeFile(join(this.options.transcriptsDir, file), bytes, { mode: 0o600, flag: 'wx' });
      return undefined;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code ?? String(error);
    }
  }
}
