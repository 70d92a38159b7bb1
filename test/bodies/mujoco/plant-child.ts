/** Runs in a worker thread (room.test.ts): a twin made, stepped and read there, nowhere else. */
import { parentPort } from 'node:worker_threads';
import { openMujocoPlant } from '../../../src/bodies/microduck/mujoco/plant.js';
import { LEGACY_HOME, PERIOD } from './hold.js';

const plant = await openMujocoPlant({ seed: 7 });
for (let i = 0; i < 50; i++) {
  plant.send(Float64Array.from(LEGACY_HOME));
  plant.advance(PERIOD);
}
const frame = plant.read();
parentPort?.postMessage({ time: plant.time(), gravity: frame?.gravity, z: plant.trunk().z });
plant.close();
