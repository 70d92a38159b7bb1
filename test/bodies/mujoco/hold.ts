/** Shared by the twin's tests: the legacy home pose written out, and a loop that holds it. */
import { before } from 'node:test';
import { createMujocoPlant, type MujocoPlant, type MujocoPlantOptions } from '../../../src/bodies/microduck/mujoco/plant.js';
import { loadMujoco, type Mujoco } from '../../../src/bodies/microduck/mujoco/wasm.js';

/** The legacy home pose in policy order (../shared/sim-kit), written out rather than imported. */
export const LEGACY_HOME = [0, 0, 0.6, -1.2, 0.6, -0.5, 0.5, 0, 0, 0, 0, -0.6, 1.2, -0.6];

export const PERIOD = 0.02;

export const deg = (rad: number): number => (rad * 180) / Math.PI;

/** Tilt of the trunk from upright, from the roll and pitch the plant reports. */
export function trunkTilt(plant: MujocoPlant): number {
  const { roll, pitch } = plant.trunk();
  // z axis after pitch then roll: its vertical component is cos(roll)·cos(pitch).
  return Math.acos(Math.cos(roll) * Math.cos(pitch));
}

/** Sends the home targets every period for `seconds`, calling `each` after every period. */
export function holdHome(plant: MujocoPlant, seconds: number, each?: () => void): void {
  const targets = Float64Array.from(LEGACY_HOME);
  const periods = Math.round(seconds / PERIOD);
  for (let i = 0; i < periods; i++) {
    plant.send(targets);
    plant.advance(PERIOD);
    each?.();
  }
}

/**
 * For a test file: MuJoCo loaded once before its tests, and `withPlant(options, run)`, which
 * makes a twin, runs `run` on it and closes it whatever happens.
 */
export function twinPlants(): <T>(options: MujocoPlantOptions, run: (plant: MujocoPlant) => T) => T {
  let mujoco: Mujoco | undefined;
  before(async () => {
    mujoco = await loadMujoco();
  });
  return (options, run) => {
    if (mujoco === undefined) throw new Error('MuJoCo is not loaded: use withPlant inside a test');
    const plant = createMujocoPlant(mujoco, options);
    try {
      return run(plant);
    } finally {
      plant.close();
    }
  };
}
