import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lowestPoint } from '../../../src/bodies/microduck/mujoco/clearance.js';
import { PUBLISHED_KP } from '../../../src/bodies/microduck/mujoco/duck-spec.js';
import type { MujocoPlantOptions } from '../../../src/bodies/microduck/mujoco/plant.js';
import { LEGACY_HOME, PERIOD, deg, holdHome, trunkTilt, twinPlants } from './hold.js';

const withPlant = twinPlants();

describe('microduck:mujoco standing and falling', () => {
  for (const seed of [1, 7, 42]) {
    it(`holding the home pose it stands for 5 s (seed ${seed})`, () => {
      withPlant({ seed }, (plant) => {
        const start = plant.trunk();
        let maxTilt = 0;
        let [zMin, zMax] = [Infinity, -Infinity];
        holdHome(plant, 5, () => {
          maxTilt = Math.max(maxTilt, trunkTilt(plant));
          zMin = Math.min(zMin, plant.trunk().z);
          zMax = Math.max(zMax, plant.trunk().z);
        });
        assert.ok(Math.abs(plant.time() - 5) < 1e-9);
        assert.ok(deg(maxTilt) < 10, `tilt reached ${deg(maxTilt).toFixed(1)}°`);
        // The crouch puts the trunk origin 11.9 cm up; soft servos let it sag a few mm, no more.
        assert.ok(zMin > 0.11 && zMax < 0.12, `trunk z between ${zMin} and ${zMax}`);
        const end = plant.trunk();
        assert.ok(Math.hypot(end.x - start.x, end.y - start.y) < 0.02, 'the duck crept away');
      });
    });
  }

  it('with the published kp (0.55) the same hold folds and falls: why duck-spec doubles it', () => {
    withPlant({ seed: 7, kp: PUBLISHED_KP }, (plant) => {
      holdHome(plant, 3);
      assert.ok(deg(trunkTilt(plant)) > 45, `tilt ${deg(trunkTilt(plant))}°`);
    });
  });

  const falls: [string, MujocoPlantOptions, { x: number; y: number; z: number } | undefined][] = [
    ['tipped 30° forward', { seed: 7, tilt: { pitch: 0.5 } }, undefined],
    ['shoved backwards at 0.5 m/s', { seed: 7 }, { x: -0.5, y: 0, z: 0 }],
  ];
  for (const [how, options, shove] of falls) {
    it(`a duck ${how} ends lying on the floor, never through it`, () => {
      withPlant(options, (plant) => {
        if (shove !== undefined) {
          // The duck faces its heading: turn the shove from its frame into the world's.
          const h = plant.layout.duck.heading;
          plant.push({ x: shove.x * Math.cos(h) - shove.y * Math.sin(h), y: shove.x * Math.sin(h) + shove.y * Math.cos(h), z: 0 });
        }
        const trunk = plant.sim.id('body', 'trunk');
        let lowest = Infinity;
        let trunkLowest = Infinity;
        holdHome(plant, 3, () => {
          lowest = Math.min(lowest, lowestPoint(plant.sim, trunk));
          trunkLowest = Math.min(trunkLowest, plant.trunk().z);
        });
        assert.ok(deg(trunkTilt(plant)) > 60, `still up: tilt ${deg(trunkTilt(plant))}°`);
        const z = plant.trunk().z;
        assert.ok(z > 0.02 && z < 0.09, `lying trunk at z=${z}`);
        // Contacts are soft and steps are 5 ms: a head landing at ~2 m/s travels 1 cm per step,
        // so for a step or two it may dip up to that far into the floor; the trunk never does.
        assert.ok(lowest > -0.01, `sank ${(-lowest * 1000).toFixed(1)} mm into the floor`);
        assert.ok(trunkLowest > 0.03, `trunk down to z=${trunkLowest}`);
        // At rest on the floor, nothing is more than 3 mm in it.
        assert.ok(lowestPoint(plant.sim, trunk) > -0.003);
      });
    });
  }

  it('a servo follows its target: the knee bends 0.3 rad further and gets there', () => {
    withPlant({ seed: 7 }, (plant) => {
      const targets = Float64Array.from(LEGACY_HOME);
      targets[3] = -1.5; // left knee, 0.3 rad more bent
      for (let i = 0; i < 25; i++) {
        plant.send(targets);
        plant.advance(PERIOD);
      }
      const knee = plant.read()?.jointPos[3];
      assert.ok(knee !== undefined && Math.abs(knee - -1.5) < 0.1, `left knee at ${knee}`);
    });
  });

  it('advance is 4 steps of 5 ms per 20 ms period; a wrong target vector is refused', () => {
    withPlant({ seed: 7 }, (plant) => {
      plant.advance(0.02);
      assert.ok(Math.abs(plant.time() - 0.02) < 1e-12);
      assert.throws(() => plant.advance(0.001), RangeError);
      assert.throws(() => plant.send(new Float64Array(13)), RangeError);
    });
  });

  it('is deterministic: the same targets give the same trajectory, to the bit', () => {
    const run = (): number[] =>
      withPlant({ seed: 7 }, (plant) => {
        const targets = Float64Array.from(LEGACY_HOME);
        for (let i = 0; i < 150; i++) {
          // A swaying, deterministic command: hips and ankles out of phase.
          const s = 0.2 * Math.sin(i * 0.2);
          targets[2] = 0.6 + s;
          targets[11] = -0.6 + s;
          targets[4] = 0.6 - s;
          plant.send(targets);
          plant.advance(PERIOD);
        }
        return [...plant.sim.qpos(), ...plant.sim.qvel()];
      });
    assert.deepEqual(run(), run());
  });

  it('a closed plant reads nothing and moves nothing (and closes twice)', () => {
    withPlant({ seed: 7 }, (plant) => {
      plant.close();
      assert.equal(plant.read(), undefined);
      plant.send(Float64Array.from(LEGACY_HOME));
      plant.advance(PERIOD);
    });
  });
});
