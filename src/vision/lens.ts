/**
 * A pinhole lens: which way a pixel looks, from the camera's horizontal field of view and its
 * mount's pitch. Pure arithmetic shared by the detector and the simulators' renderers.
 */
import type { CameraMount } from '../camera/settings.js';

export interface Lens {
  readonly width: number;
  readonly height: number;
  readonly fov_deg: number;
  readonly mount: CameraMount;
}

/** Focal length in pixels. */
export function focalPx(lens: Pick<Lens, 'width' | 'fov_deg'>): number {
  return lens.width / 2 / Math.tan((lens.fov_deg * Math.PI) / 360);
}

/** A ray through image point (col, row) (pixel edges at integers): forward, left, up (the robot's frame, not normalised). */
export function pixelRay(lens: Lens, col: number, row: number): readonly [number, number, number] {
  const f = focalPx(lens);
  const right = (col - lens.width / 2) / f;
  const down = (row - lens.height / 2) / f;
  const pitch = (lens.mount.pitch_deg * Math.PI) / 180;
  return [Math.cos(pitch) - down * Math.sin(pitch), -right, -(down * Math.cos(pitch) + Math.sin(pitch))];
}

/** The angle between two rays. */
export function angleBetween(a: readonly [number, number, number], b: readonly [number, number, number]): number {
  const dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const norm = Math.hypot(...a) * Math.hypot(...b);
  return Math.acos(Math.min(1, Math.max(-1, dot / norm)));
}
