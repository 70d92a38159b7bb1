/**
 * Quaternion arithmetic the twin needs, pure and unit-free of MuJoCo: MuJoCo's quaternions are
 * (w, x, y, z) and rotate a body's frame into the world's.
 */

export type Quat = readonly [number, number, number, number];
export type Vec3 = readonly [number, number, number];

/** Roll, pitch, yaw (intrinsic z-y-x, as an aircraft's), radians. */
export interface Euler {
  readonly roll: number;
  readonly pitch: number;
  readonly yaw: number;
}

export function eulerFromQuat([w, x, y, z]: Quat): Euler {
  const sinPitch = Math.max(-1, Math.min(1, 2 * (w * y - z * x)));
  return {
    roll: Math.atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y)),
    pitch: Math.asin(sinPitch),
    yaw: Math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)),
  };
}

export function quatFromEuler({ roll, pitch, yaw }: Euler): Quat {
  const [cr, sr] = [Math.cos(roll / 2), Math.sin(roll / 2)];
  const [cp, sp] = [Math.cos(pitch / 2), Math.sin(pitch / 2)];
  const [cy, sy] = [Math.cos(yaw / 2), Math.sin(yaw / 2)];
  return [cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy, cr * cp * sy - sr * sp * cy];
}

/**
 * World gravity (0, 0, −1) seen from a frame with orientation q: Rᵀ·(0, 0, −1), which is minus
 * the bottom row of R. Upright gives (0, 0, −1); nose down gives +x.
 */
export function gravityInFrame([w, x, y, z]: Quat): Vec3 {
  return [-2 * (x * z - w * y), -2 * (y * z + w * x), -(1 - 2 * (x * x + y * y))];
}

/** Angle between the frame's z axis and the world's, radians (0 upright, π upside down). */
export function tiltOf(q: Quat): number {
  return Math.acos(Math.max(-1, Math.min(1, -gravityInFrame(q)[2])));
}
