/**
 * xlerobot:sim: XLeRobot (a wheeled base carrying two arms and a pan/tilt head camera) as a
 * kinematic robot of the lookout room. It has no speaker: its quack is a clap of its grippers.
 */
import { rad } from '../../microduck/sim2d/arena.js';
import type { RoverProfile } from '../../room/rover-profile.js';

export const XLEROBOT: RoverProfile = {
  key: 'xlerobot:sim',
  radius: 0.25,
  camera: { halfFov: rad(35), halfVfov: rad(25), range: 6, height: 1.1 },
  moves: 'drive',
  head: { yaw: 90, pitch: 45 },
  quack: 'clapped its grippers: clack-clack (it has no speaker)',
};
