/**
 * alohamini:sim: AlohaMini (a mobile base with two arms, its camera fixed to the front) as a
 * kinematic robot of the lookout room: it looks about by turning its base. It has no speaker:
 * its quack is a snap of both grippers.
 */
import { rad } from '../../microduck/sim2d/arena.js';
import type { RoverProfile } from '../../room/rover-profile.js';

export const ALOHAMINI: RoverProfile = {
  key: 'alohamini:sim',
  radius: 0.25,
  camera: { halfFov: rad(40), halfVfov: rad(30), range: 6, height: 0.9 },
  moves: 'drive',
  quack: 'snapped both grippers twice: snap-snap (it has no speaker)',
};
