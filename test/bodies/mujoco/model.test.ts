import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { lowestPoint } from '../../../src/bodies/microduck/mujoco/clearance.js';
import { MujocoModelError, loadMujoco, type Mujoco } from '../../../src/bodies/microduck/mujoco/wasm.js';
import { createMujocoPlant, type MujocoPlant } from '../../../src/bodies/microduck/mujoco/plant.js';
import { LEGACY_HOME, holdHome } from './hold.js';

const POLICY_ORDER = [
  'left_hip_yaw', 'left_hip_roll', 'left_hip_pitch', 'left_knee', 'left_ankle',
  'neck_pitch', 'head_pitch', 'head_yaw', 'head_roll',
  'right_hip_yaw', 'right_hip_roll', 'right_hip_pitch', 'right_knee', 'right_ankle',
];

let mujoco: Mujoco;
let plant: MujocoPlant;
before(async () => {
  mujoco = await loadMujoco();
  plant = createMujocoPlant(mujoco, { seed: 7 });
});
after(() => plant.close());

describe('microduck:mujoco model', () => {
  it('compiles with 14 position servos in the policy order', () => {
    assert.equal(plant.sim.nu, 14);
    const actuators = Array.from({ length: plant.sim.nu }, (_, i) => plant.sim.name('actuator', i));
    assert.deepEqual(actuators, POLICY_ORDER);
    // Each actuator drives the joint of its own name.
    actuators.forEach((name, i) => assert.equal(plant.sim.actuatorJoint(i), plant.sim.id('joint', name)));
    // 5 ms steps: 4 of them make one 20 ms control period.
    assert.equal(plant.timestep, 0.005);
  });

  it('announces each joint with its limits and top speed', () => {
    assert.deepEqual(plant.joints.map((j) => j.name), POLICY_ORDER);
    const byName = new Map(plant.joints.map((j) => [j.name, j]));
    // Legacy Microduck limits: hip yaw ±20°, knee ±110°, head roll ±30°; hip pitch ±90°.
    assert.deepEqual([byName.get('left_hip_yaw')?.min, byName.get('left_hip_yaw')?.max], [-0.3491, 0.3491]);
    assert.deepEqual([byName.get('right_knee')?.min, byName.get('right_knee')?.max], [-1.9199, 1.9199]);
    assert.deepEqual([byName.get('head_roll')?.min, byName.get('head_roll')?.max], [-0.5236, 0.5236]);
    assert.deepEqual([byName.get('left_hip_pitch')?.min, byName.get('left_hip_pitch')?.max], [-1.5708, 1.5708]);
    // XL330-M288 at 6 V: 123 rev/min.
    for (const j of plant.joints) assert.ok(Math.abs(j.maxVelocity - 12.88) < 0.01, `${j.name}: ${j.maxVelocity}`);
    LEGACY_HOME.forEach((q, i) => {
      const j = plant.joints[i];
      assert.ok(j !== undefined && q >= j.min && q <= j.max, `home ${q} of ${j?.name} outside its limits`);
    });
  });

  it('weighs what an Open Duck Mini–class duck weighs', () => {
    const masses = plant.sim.bodyMass();
    const roots = plant.sim.bodyRoot();
    const trunk = plant.sim.id('body', 'trunk');
    let duck = 0;
    for (let b = 0; b < masses.length; b++) if (roots[b] === trunk) duck += masses[b] ?? 0;
    assert.ok(Math.abs(duck - 0.745) < 0.005, `duck mass ${duck} kg`);
    assert.ok(Math.abs((masses[plant.sim.id('body', 'ball')] ?? 0) - 0.04) < 1e-9);
  });

  it('starts at the home pose with both soles flat on the floor, about 25 cm tall', () => {
    const qpos = plant.read()?.jointPos;
    assert.ok(qpos !== undefined);
    assert.deepEqual(Array.from(qpos), LEGACY_HOME);
    const sim = plant.sim;
    for (const sole of ['left_sole', 'right_sole']) {
      const g = sim.id('geom', sole);
      const bottom = (sim.geomXpos()[3 * g + 2] ?? 0) - (sim.geomSize()[3 * g + 2] ?? 0);
      assert.ok(Math.abs(bottom) < 1e-6, `${sole} bottom at z=${bottom}`);
      // Flat: the sole's z axis is vertical.
      assert.ok(Math.abs((sim.geomXmat()[9 * g + 8] ?? 0) - 1) < 1e-9, `${sole} is not flat`);
    }
    assert.ok(Math.abs(lowestPoint(sim, sim.id('body', 'trunk'))) < 1e-6, 'something is lower than the soles');
    const head = sim.id('geom', 'head');
    const top = (sim.geomXpos()[3 * head + 2] ?? 0) + (sim.geomSize()[3 * head + 2] ?? 0);
    assert.ok(top > 0.23 && top < 0.28, `head top at ${top} m`);
  });

  it('the feet really touch: holding home, the trunk settles by under a centimetre', () => {
    const fresh = createMujocoPlant(mujoco, { seed: 1 });
    const z0 = fresh.trunk().z;
    holdHome(fresh, 0.5);
    const z1 = fresh.trunk().z;
    fresh.close();
    assert.ok(z1 < z0 && z0 - z1 < 0.01, `trunk z ${z0} → ${z1}`);
  });

  it('a model MuJoCo refuses is a typed error with its message', () => {
    assert.throws(() => mujoco.compile('<mujoco><worldbody><geom type="box"/></worldbody></mujoco>'), (err: unknown) => err instanceof MujocoModelError && /size 0 must be positive/.test(err.message));
  });
});
