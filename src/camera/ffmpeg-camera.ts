/**
 * A V4L2 camera (a USB webcam, /dev/video0) or a network camera's stream (http:// MJPEG,
 * rtsp://) through Debian's ffmpeg: ffmpeg opens it, scales to the configured size, caps the
 * rate, and writes raw rgb24 frames to its stdout. The input is a list of ffmpeg arguments, so a
 * test (or a demo) can give it a synthetic source.
 */
import { PipeCamera } from './pipe-camera.js';
import type { CameraSettings } from './settings.js';

/** ffmpeg's arguments to read a V4L2 device. */
export function v4l2Input(device: string, width: number, height: number): string[] {
  return ['-f', 'v4l2', '-video_size', `${width}x${height}`, '-i', device];
}

/** A URL names a network camera's stream; anything else is a device. */
export function isStreamUrl(device: string): boolean {
  return /^(https?|rtsp):\/\//.test(device);
}

/**
 * ffmpeg's arguments to read a network stream: stamped by the wall clock as frames arrive (an
 * MJPEG stream carries no times, so the rate cap would otherwise guess), over TCP for RTSP (UDP
 * loses frames on Wi-Fi), and given up after the deadline when the camera stops answering.
 */
export function streamInput(url: string, deadlineMs: number): string[] {
  const rtsp = url.startsWith('rtsp://') ? ['-rtsp_transport', 'tcp'] : [];
  return [...rtsp, '-rw_timeout', String(deadlineMs * 1000), '-use_wallclock_as_timestamps', '1', '-i', url];
}

/** What a line may show of a camera: a stream's address without its password. */
export function cameraLabel(device: string): string {
  if (!isStreamUrl(device)) return device;
  try {
    const url = new URL(device);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return device;
  }
}

/**
 * The whole ffmpeg command line after `ffmpeg`: input, then scaled, rate-capped rgb24 frames on
 * stdout. The cap drops frames and never repeats one (`-fps_mode vfr`). A raw output is otherwise
 * constant-rate: ffmpeg times its slots by its own clock and fills a slot the stream left empty
 * with the last frame again, so a grab that let one frame pass (pipe-camera.ts) could take that
 * old picture a second time (with no cap at all, the rate guessed, 20 starts of 20 were old; with
 * no cap and no repeats, `passthrough`, 6 of 20: the cap's dropping matters too). Measured from a
 * loopback MJPEG stream that numbers its frames, at 2 fps under a 2 fps cap (the twin's camera),
 * 8 grabs a start: constant-rate, in 4 starts of 35 (2 of 20 alone, 2 of 15 beside two busy
 * processes) nearly every grab got a frame made before it was asked for; with `vfr`, no grab in
 * 35 starts. At 5 and 10 fps it still happens in 1 start of 12 alone and 2–4 of 15 under load,
 * a frame late: buffering a count of frames cannot see.
 */
export function ffmpegArgs(input: readonly string[], width: number, height: number, fps: number): string[] {
  return ['-hide_banner', '-loglevel', 'error', '-nostdin', ...input, '-an', '-vf', `scale=${width}:${height}`, '-fps_mode', 'vfr', '-r', String(fps), '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'];
}

type FfmpegSettings = Pick<CameraSettings, 'device' | 'width' | 'height' | 'fps' | 'deadline_ms'>;

function defaultInput(settings: FfmpegSettings): string[] {
  return isStreamUrl(settings.device) ? streamInput(settings.device, settings.deadline_ms) : v4l2Input(settings.device, settings.width, settings.height);
}

export function ffmpegCamera(settings: FfmpegSettings, input: readonly string[] = defaultInput(settings)): PipeCamera {
  const { width, height } = settings;
  return new PipeCamera({
    source: cameraLabel(settings.device),
    command: 'ffmpeg',
    args: ffmpegArgs(input, width, height, settings.fps),
    install: 'apt install ffmpeg',
    width,
    height,
    frameBytes: width * height * 3,
    deadlineMs: settings.deadline_ms,
  });
}
