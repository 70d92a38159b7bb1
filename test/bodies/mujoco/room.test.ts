import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { describe, it } from 'node:test';
import { ROOM } from '../../../src/bodies/microduck/sim2d/arena.js';
import { createSim2dBody, layoutForSeed } from '../../../src/bodies/microduck/sim2d/sim2d-body.js';
import type { MujocoPlantOptions } from '../../../src/bodies/microduck/mujoco/plant.js';
import { eulerFromQuat, gravityInFrame, quatFromEuler } from '../../../src/bodies/microduck/mujoco/pose.js';
import { PERIOD, holdHome, twinPlants } from './hold.js';

const withPlant = twinPlants();

const rad = (d: number): number => (d * Math.PI) / 180;
const near = (a: number, b: number, tol: number, what: string): void => assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b}`);
const scene = (duck: [number, number, number], ball: [number, number]): MujocoPlantOptions => ({
  seed: 0,
  layout: { duck: { x: duck[0], y: duck[1], heading: rad(duck[2]) }, ball: { x: ball[0], y: ball[1] } },
});

describe('microduck:mujoco living room', () => {
  it('lays out a seed as sim2d does: the duck where and as it faces, the ball where it lies', () => {
    for (const seed of [1, 7, 42, 1234]) {
      withPlant({ seed }, (plant) => {
        const { duck, ball } = layoutForSeed(seed);
        const trunk = plant.trunk();
        near(trunk.x, duck.x, 1e-9, `seed ${seed} duck x`);
        near(trunk.y, duck.y, 1e-9, `seed ${seed} duck y`);
        near(trunk.yaw, duck.heading, 1e-9, `seed ${seed} heading`);
        near(plant.ball().x, ball.x, 1e-9, `seed ${seed} ball x`);
        near(plant.ball().y, ball.y, 1e-9, `seed ${seed} ball y`);
      });
    }
    // And against sim2d's own frame for the default seed, as a run's transcript records it.
    const state = createSim2dBody({ seed: 7 }).frame().state as { duck: { x: number; y: number; heading_deg: number }; ball: { x: number; y: number } };
    withPlant({ seed: 7 }, (plant) => {
      assert.deepEqual(state.duck, { x: 0.45, y: 0.6, heading_deg: -8 });
      near(plant.trunk().x, state.duck.x, 0.005, 'duck x');
      near(plant.trunk().y, state.duck.y, 0.005, 'duck y');
      near(plant.ball().x, 3.31, 0.005, 'ball x');
      near(plant.ball().y, 2.07, 0.005, 'ball y');
    });
  });

  it('the ball lies still until hit, then rolls: spinning as fast as it travels, inside the walls', () => {
    withPlant(scene([1, 1, 90], [2.5, 2]), (plant) => {
      holdHome(plant, 1);
      near(plant.ball().x, 2.5, 0.001, 'resting ball x');
      near(plant.ball().z, 0.06, 0.001, 'resting ball z');
      plant.hitBall({ x: 1, y: 0, z: 0 });
      holdHome(plant, 1);
      const { x, y, z } = plant.ball();
      assert.ok(x - 2.5 > 0.4, `rolled only ${x - 2.5} m`);
      near(y, 2, 0.01, 'ball strayed sideways');
      near(z, 0.06, 0.001, 'ball left the floor');
      // Rolling, not sliding: the spin about y times the radius equals the speed along x.
      const qvel = plant.sim.qvel();
      const dof = plant.sim.jntDofAdr()[plant.sim.id('joint', 'ball_free')] ?? -1;
      const [vx = 0, wy = 0] = [qvel[dof], qvel[dof + 4]];
      assert.ok(vx > 0.3, `ball speed ${vx}`);
      near(wy * 0.06, vx, 0.02 * vx, 'spin × radius vs speed');
      // A hard hit towards the east wall: it bounces, it does not leave the room.
      plant.hitBall({ x: 3, y: 0, z: 0 });
      holdHome(plant, 2);
      assert.ok(plant.ball().x < ROOM.x1 - 0.059, `ball at x=${plant.ball().x}`);
    });
  });

  it('the head camera sees the ball in front, not beside, and not through the sofa', () => {
    // Facing +x from (1, 1): a ball 1.5 m ahead is seen straight ahead from the camera, which at
    // the home pose sits 9.9 cm ahead of the hips (neck 20 mm + 50 mm·sin 0.5 leaned, head roll
    // axis −17.9 mm, lens 73.3 mm ahead of it), so 1.40 m away.
    withPlant(scene([1, 1, 0], [2.5, 1]), (plant) => {
      const seen = plant.seesBall();
      assert.ok(seen !== undefined);
      near(seen.bearing, 0, rad(1), 'bearing');
      near(seen.distance, 1.4006, 0.001, 'distance');
    });
    withPlant(scene([1, 1, 90], [2.5, 1]), (plant) => assert.equal(plant.seesBall(), undefined));
    // sim2d's sofa case: below the sofa looking up through it, then from its left, clear.
    withPlant(scene([3.6, 1.5, 90], [3.6, 3.8]), (plant) => assert.equal(plant.seesBall(), undefined));
    withPlant(scene([1.5, 3.8, 0], [3.6, 3.8]), (plant) => {
      const seen = plant.seesBall();
      assert.ok(seen !== undefined);
      near(seen.distance, 2.1 - 0.0994, 0.001, 'distance');
    });
  });

  it('a duck on its back sees nothing: its camera looks at the ceiling', () => {
    withPlant({ ...scene([1, 1, 0], [2.5, 1]), tilt: { pitch: rad(-100) } }, (plant) => {
      assert.equal(plant.camera(), undefined);
      assert.equal(plant.seesBall(), undefined);
    });
  });

  it('projected gravity is (0, 0, −1) upright, whatever the heading, and turns with a tilt', () => {
    for (const seed of [1, 7]) {
      withPlant({ seed }, (plant) => {
        const g = plant.read()?.gravity;
        assert.ok(g !== undefined);
        [0, 0, -1].forEach((v, i) => near(g[i] ?? NaN, v, 1e-9, `seed ${seed} g[${i}]`));
      });
    }
    // Nose down by 0.3 rad: gravity leans towards the duck's front (+x): (sin 0.3, 0, −cos 0.3).
    withPlant({ seed: 7, tilt: { pitch: 0.3 } }, (plant) => {
      const g = plant.read()?.gravity ?? [NaN, NaN, NaN];
      near(g[0], 0.2955, 1e-4, 'g x');
      near(g[1], 0, 1e-9, 'g y');
      near(g[2], -0.9553, 1e-4, 'g z');
    });
    // Left side up by 0.3 rad: gravity points to the duck's right (−y).
    withPlant({ seed: 7, tilt: { roll: 0.3 } }, (plant) => {
      const g = plant.read()?.gravity ?? [NaN, NaN, NaN];
      near(g[0], 0, 1e-9, 'g x');
      near(g[1], -0.2955, 1e-4, 'g y');
      near(g[2], -0.9553, 1e-4, 'g z');
    });
    // The same from the quaternion helpers alone, and their round trip.
    const q = quatFromEuler({ roll: 0.1, pitch: -0.2, yaw: 2 });
    const e = eulerFromQuat(q);
    near(e.roll, 0.1, 1e-12, 'roll');
    near(e.pitch, -0.2, 1e-12, 'pitch');
    near(e.yaw, 2, 1e-12, 'yaw');
    assert.deepEqual(gravityInFrame([1, 0, 0, 0]).map((v) => v + 0), [0, 0, -1]);
  });

  it("the accelerometer reads gravity's reaction standing still, and the trunk's push when the duck is shoved", () => {
    withPlant({ seed: 7 }, (plant) => {
      holdHome(plant, 1);
      const f = plant.read();
      assert.ok(f?.accel !== undefined);
      // Standing: about 9.81 m/s² up the trunk, opposite to gravity.
      f.accel.forEach((v, i) => near(v, -9.80665 * (f.gravity[i] ?? NaN), 0.3, `standing accel[${i}]`));
      // A shove forward (the trunk sped up by 0.5 m/s within one 5 ms step): the x reading jumps, gravity does not.
      const { sim } = plant;
      const qvel = sim.qvel();
      const heading = plant.layout.duck.heading;
      qvel[0] = (qvel[0] ?? 0) + 0.5 * Math.cos(heading);
      qvel[1] = (qvel[1] ?? 0) + 0.5 * Math.sin(heading);
      sim.step(1);
      const shoved = plant.read();
      assert.ok(shoved?.accel !== undefined);
      assert.ok(Math.abs(shoved.accel[0]) > 3 || Math.abs(shoved.accel[1]) > 3 || Math.abs(shoved.accel[2] - 9.81) > 3, `after a shove: ${shoved.accel.map((v) => v.toFixed(2)).join(', ')}`);
    });
  });

  it('tells which foot touches the floor: both standing, the right only with the left side tipped up', () => {
    withPlant({ seed: 7 }, (plant) => {
      holdHome(plant, 0.5);
      assert.deepEqual(plant.read()?.feet, [true, true]);
    });
    withPlant({ seed: 7, tilt: { roll: 0.3 } }, (plant) => {
      assert.deepEqual(plant.read()?.feet, [false, true]);
    });
    withPlant({ seed: 7, tilt: { roll: -0.3 } }, (plant) => {
      assert.deepEqual(plant.read()?.feet, [true, false]);
    });
  });

  it('a twin runs inside a worker thread, nothing of it on the main thread', async () => {
    const child = new URL('./plant-child.ts', import.meta.url);
    // Node 20 runs --import preloads (tsx) in the main thread only: the worker registers tsx itself.
    const tsx = import.meta.resolve('tsx/esm/api');
    const worker = new Worker(`import(${JSON.stringify(tsx)}).then((t) => (t.register(), import(${JSON.stringify(child.href)})))`, { eval: true });
    const reply = await new Promise<{ time: number; gravity: number[]; z: number }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    near(reply.time, 50 * PERIOD, 1e-9, 'sim time');
    near(reply.gravity[2] ?? NaN, -1, 0.01, 'gravity z');
    assert.ok(reply.z > 0.11, `trunk z ${reply.z}`);
  });
});
