/**
 * What tells one kinematic robot of the lookout room from another (XLeRobot, AlohaMini,
 * ToddlerBot): its size, its camera, whether it drives or walks, its head's reach, its quack.
 * Data only, so the body catalog can list a robot's verbs without loading its sim.
 */
import type { BodyKey } from '../body.js';
import type { Camera } from './camera.js';

/** A pan/tilt head's reach from straight ahead, degrees either way. */
export interface HeadReach {
  readonly yaw: number;
  readonly pitch: number;
}

export interface RoverProfile {
  readonly key: BodyKey;
  /** Its footprint: a move stops this close to a wall or a thing. */
  readonly radius: number;
  readonly camera: Camera;
  /** A wheeled base drives; legs walk. */
  readonly moves: 'drive' | 'walk';
  /** A head that looks about on its own (`look`); without one the camera faces the front. */
  readonly head?: HeadReach;
  /** What its quack is, as the result says it: `clapped its grippers: clack-clack`. */
  readonly quack: string;
}

/** The verbs a rover performs, from what it has. */
export function roverVerbs(p: RoverProfile): string[] {
  return ['look_around', ...(p.head !== undefined ? ['look'] : []), 'turn', p.moves, 'report', 'quack'];
}
