/**
 * Fall detection as robotd does it: the trunk's tilt, read from projected gravity, beyond a
 * threshold for a few ticks in a row is a fall. Counting ticks keeps one jolt (a kick, a bump)
 * from ending a verb; the same count upright again is a recovery (someone stood the duck up).
 */
import type { SensorFrame, TrunkPose } from './plant.js';

export interface FallSettings {
  /** rad from upright */
  readonly tiltRad: number;
  /** consecutive ticks beyond the threshold (or back within it) that make it a fall (a recovery) */
  readonly ticks: number;
  /** the safe state after a fall: keep the last targets, or torque off where the plant can */
  readonly then: 'hold' | 'limp';
}

export const DEFAULT_FALL: FallSettings = { tiltRad: Math.PI / 4, ticks: 3, then: 'hold' };

/** The same angle from a trunk pose's roll and pitch (a twin that knows its pose). */
export function trunkTilt(pose: Pick<TrunkPose, 'roll' | 'pitch'>): number {
  return Math.acos(Math.max(-1, Math.min(1, Math.cos(pose.roll) * Math.cos(pose.pitch))));
}

/** Angle between the trunk's down axis and gravity, rad: 0 upright, π/2 on its side. */
export function tiltOf(gravity: SensorFrame['gravity']): number {
  const [x, y, z] = gravity;
  const norm = Math.hypot(x, y, z);
  return Math.acos(Math.min(1, Math.max(-1, -z / norm)));
}

export class FallDetector {
  private streak = 0;
  fallen = false;

  constructor(private readonly settings: FallSettings) {}

  /** A tilt (or, down, an upright reading) is being counted: the next ticks decide. */
  get counting(): boolean {
    return this.streak > 0;
  }

  /** One tick's gravity; says when the state flips. */
  update(gravity: SensorFrame['gravity']): 'fell' | 'recovered' | undefined {
    const tilted = tiltOf(gravity) > this.settings.tiltRad;
    this.streak = tilted === this.fallen ? 0 : this.streak + 1;
    if (this.streak < this.settings.ticks) return undefined;
    this.streak = 0;
    this.fallen = tilted;
    return tilted ? 'fell' : 'recovered';
  }
}
