/**
 * A Raspberry Pi camera (CSI) through rpicam-vid, which writes raw I420 frames at a capped rate
 * to its stdout; converted to RGB here as each is grabbed.
 */
import { PipeCamera } from './pipe-camera.js';
import type { CameraSettings } from './settings.js';
import { i420Bytes, i420ToRgb } from './yuv.js';

/** rpicam-vid's arguments: forever, no preview window, raw yuv420 at the size and rate asked. */
export function rpicamArgs(index: number, width: number, height: number, fps: number): string[] {
  return ['-t', '0', '-n', '--camera', String(index), '--codec', 'yuv420', '--width', String(width), '--height', String(height), '--framerate', String(fps), '-o', '-'];
}

type RpicamSettings = Pick<CameraSettings, 'device' | 'width' | 'height' | 'fps' | 'deadline_ms'>;

export function rpicamCamera(settings: RpicamSettings): PipeCamera {
  const { width, height } = settings;
  const index = Number(settings.device.split(':')[1] ?? 0);
  return new PipeCamera({
    source: settings.device,
    command: 'rpicam-vid',
    args: rpicamArgs(index, width, height, settings.fps),
    install: 'apt install rpicam-apps, on Raspberry Pi OS',
    width,
    height,
    frameBytes: i420Bytes(width, height),
    toRgb: i420ToRgb,
    deadlineMs: settings.deadline_ms,
  });
}
