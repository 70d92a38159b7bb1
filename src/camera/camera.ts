/**
 * The camera seam: one small interface every camera sits behind (a V4L2 device through ffmpeg,
 * a Raspberry Pi camera through rpicam-vid, the simulators' synthetic one). A frame is packed
 * RGB, row by row. Frames are made in their own process (or rendered by a simulator between
 * verbs), so grabbing one never delays the control loop; a camera that goes away is a
 * CameraError with one line, never a crash. Keep behaviour out of this file.
 */

/** One picture: `width`×`height` pixels, 3 bytes each (R, G, B), rows top to bottom. */
export interface CameraFrame {
  readonly width: number;
  readonly height: number;
  readonly rgb: Uint8Array;
  /** When it arrived (ms since the epoch). */
  readonly at: number;
}

/** What a camera says of itself, in the shape of a `quackd health` line. */
export interface CameraHealth {
  readonly status: 'ok' | 'warn' | 'fail';
  readonly detail: string;
}

export interface GrabOptions {
  /** 'made-after' (the default): a frame made after the call; 'next': the next frame to come. */
  readonly take?: 'made-after' | 'next';
}

export interface Camera {
  /** Where the frames come from: `/dev/video0`, `rpicam:0`, `synthetic`. */
  readonly source: string;
  /**
   * The next frame made after this call (so a frame after a turn shows the turn done), within the
   * camera's deadline; with `take: 'next'`, the next to come, which may have been made before it
   * (a film wants every frame as it comes, not one a frame period later).
   */
  grab(signal?: AbortSignal, options?: GrabOptions): Promise<CameraFrame>;
  /** Grab a frame and say how that went, in one line; never throws. */
  health(): Promise<CameraHealth>;
  /** Stop the camera's process. Idempotent. */
  close(): Promise<void>;
}

/**
 * `missing`: the program or device is not here; `gone`: the camera's process ended (unplugged,
 * killed); `timeout`: no frame within the deadline; `corrupt`: a frame of the wrong size.
 */
export type CameraErrorKind = 'missing' | 'gone' | 'timeout' | 'corrupt';

/** A camera that could not give a frame: the verb that asked fails with this one line. */
export class CameraError extends Error {
  override readonly name = 'CameraError';
  constructor(
    readonly kind: CameraErrorKind,
    message: string,
  ) {
    super(message);
  }
}
