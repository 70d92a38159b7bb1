/**
 * A V4L2 camera (a USB webcam, /dev/video0) through Debian's ffmpeg: ffmpeg opens the device,
 * scales to the configured size, caps the rate, and writes raw rgb24 frames to its stdout.
 * The input is a list of ffmpeg arguments, so a test (or a demo) can give it a synthetic source.
 */
import { PipeCamera } from './pipe-camera.js';
import type { CameraSettings } from './settings.js';

/** ffmpeg's arguments to read a V4L2 device. */
export function v4l2Input(device: string, width: number, height: number): string[] {
  return ['-f', 'v4l2', '-video_size', `${width}x${height}`, '-i', device];
}

/** The whole ffmpeg command line after `ffmpeg`: input, then scaled, rate-capped rgb24 frames on stdout. */
export function ffmpegArgs(input: readonly string[], width: number, height: number, fps: number): string[] {
  return ['-hide_banner', '-loglevel', 'error', '-nostdin', ...input, '-an', '-vf', `scale=${width}:${height}`, '-r', String(fps), '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'];
}

type FfmpegSettings = Pick<CameraSettings, 'device' | 'width' | 'height' | 'fps' | 'deadline_ms'>;

export function ffmpegCamera(settings: FfmpegSettings, input: readonly string[] = v4l2Input(settings.device, settings.width, settings.height)): PipeCamera {
  const { width, height } = settings;
  return new PipeCamera({
    source: settings.device,
    command: 'ffmpeg',
    args: ffmpegArgs(input, width, height, settings.fps),
    install: 'apt install ffmpeg',
    width,
    height,
    frameBytes: width * height * 3,
    deadlineMs: settings.deadline_ms,
  });
}
