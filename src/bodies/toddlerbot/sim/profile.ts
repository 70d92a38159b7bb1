/**
 * toddlerbot:sim: ToddlerBot (a small humanoid, about half a metre tall, with a neck that turns
 * and nods its head camera) as a kinematic robot of the lookout room: it walks, and its quack is
 * its speaker's.
 */
import { rad } from '../../microduck/sim2d/arena.js';
import type { RoverProfile } from '../../room/rover-profile.js';

export const TODDLERBOT: RoverProfile = {
  key: 'toddlerbot:sim',
  radius: 0.12,
  camera: { halfFov: rad(32), halfVfov: rad(25), range: 6, height: 0.5 },
  moves: 'walk',
  head: { yaw: 90, pitch: 45 },
  quack: 'quack! (from its speaker, with a wave)',
};
