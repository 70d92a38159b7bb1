/**
 * microduck:mujoco on a model of the user's (settings `mjcf`): quackd's duck exported as somebody
 * else's model (own-model.ts: renamed joints, servos in another order, a mesh sole, a scene with
 * its own floor that includes the robot's file) opens through the setting, stands where the seed
 * says, and the bundled walk walks it; the parts the loop needs are found by name or type; a model
 * that lacks one, or is missing, or does not compile, is refused in one line.
 *
 * Opt-in: QUACKD_MJCF=/path/scene.xml (and QUACKD_POLICY_DIR=/path/set, slot folders inside) also
 * opens that model through the setting, and with a set walks and turns it through the verbs.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { createMujocoBody } from '../../../src/bodies/microduck/mujoco/mujoco-body.js';
import { userModel } from '../../../src/bodies/microduck/mujoco/user-model.js';
import { layoutForSeed } from '../../../src/bodies/microduck/sim2d/sim2d-body.js';
import { trialLayout } from '../../../src/policy/make/twin-trials.js';
import { BodyError } from '../../../src/bodies/body.js';
import { LEGACY_HOME } from '../../../src/policy/microduck.js';
import { quackd } from '../../helpers/quackd.js';
import { tempDir } from '../../helpers/tmp.js';
import { PERIOD, twinPlants } from './hold.js';
import { RENAMED, exportDuck } from './own-model.js';

const withPlant = twinPlants();

/** A fresh export in its own temp folder. */
function exported(options: Parameters<typeof exportDuck>[1] = {}): ReturnType<typeof exportDuck> {
  return exportDuck(tempDir('quackd-mjcf-'), options);
}

/** What opening the body with these settings throws: a BodyError, one line. */
async function refusal(settings: Record<string, unknown>, walk?: string): Promise<string> {
  const err = await createMujocoBody({ seed: 7, settings, ...(walk !== undefined ? { policies: { walk } } : {}) }).then(
    async (body) => {
      await body.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  assert.ok(err instanceof BodyError, `expected a BodyError, got ${String(err)}`);
  assert.equal(err.message.includes('\n'), false, err.message);
  return err.message;
}

describe('microduck:mujoco on a model of your own', () => {
  it('opens it through the mjcf setting where the seed puts the duck, and the bundled walk walks it; a turn turns it', async () => {
    const { scene, walk } = exported();
    const layout = trialLayout(7);
    const body = await createMujocoBody({ seed: 7, settings: { mjcf: scene }, policies: { walk } }, layout);
    try {
      const duck = body.frame().state['duck'] as { x: number; y: number; tilt_deg: number };
      assert.ok(Math.abs(duck.x - layout.duck.x) < 0.02 && Math.abs(duck.y - layout.duck.y) < 0.02 && duck.tilt_deg < 5, JSON.stringify(duck));
      const w = await body.perform({ verb: 'walk', args: { metres: 1 } });
      assert.equal(w.ok, true, w.summary);
      assert.ok(Number(w.data?.['walked_m']) >= 0.95, w.summary);
      const t = await body.perform({ verb: 'turn', args: { degrees: 90 } });
      assert.equal(t.ok, true, t.summary);
      assert.ok(Math.abs(Number(t.data?.['turned_deg']) - 90) <= 15, t.summary);
      assert.ok((body.metrics()['tilt_deg'] ?? 90) < 30);
    } finally {
      await body.close();
    }
  });

  it("finds the joints by the walk policy's names, each driven by its own servo wherever the file declares it", () => {
    const { scene, walk } = exported();
    const model = userModel({ mjcf: scene }, walk);
    assert.deepEqual(model?.joints, RENAMED);
    withPlant({ seed: 7, layout: trialLayout(7), ...(model !== undefined ? { model } : {}) }, (plant) => {
      assert.deepEqual(plant.joints.map((j) => j.name), RENAMED);
      // The file has a home keyframe: the duck starts in it.
      assert.deepEqual(Array.from(plant.read()?.jointPos ?? []), LEGACY_HOME);
      // Each target reaches the servo of its own joint, whatever order the file declares them in.
      const targets = Float64Array.from(LEGACY_HOME, (q, i) => q + 0.01 * i);
      plant.send(targets);
      for (let a = 0; a < plant.sim.nu; a++) {
        const i = RENAMED.indexOf(plant.sim.name('joint', plant.sim.actuatorJoint(a)));
        assert.equal(plant.sim.ctrl()[a], targets[i], `servo ${plant.sim.name('actuator', a)}`);
      }
      // And it moves that joint: bend the left knee, and it is the knee that bends most.
      const bent = Float64Array.from(LEGACY_HOME);
      bent[3] = (LEGACY_HOME[3] ?? 0) + 0.2;
      for (let i = 0; i < 25; i++) {
        plant.send(bent);
        plant.advance(PERIOD);
      }
      const moved = Array.from(plant.read()?.jointPos ?? [], (q, i) => Math.abs(q - (LEGACY_HOME[i] ?? 0)));
      assert.equal(moved.indexOf(Math.max(...moved)), 3, moved.map((m) => m.toFixed(3)).join(' '));
    });
  });

  it('keeps its own servo stiffness unless the robot sets kp', () => {
    const { scene, walk } = exported();
    const model = userModel({ mjcf: scene }, walk);
    const gains = (kp?: number): number[][] =>
      withPlant({ seed: 7, ...(kp !== undefined ? { kp } : {}), ...(model !== undefined ? { model } : {}) }, (plant) =>
        Array.from({ length: plant.sim.nu }, (_, a) => [plant.sim.actuatorGainPrm()[10 * a] ?? 0, plant.sim.actuatorBiasPrm()[10 * a + 1] ?? 0]),
      );
    // The exported file's servos are quackd's: kp 1.1 (duck-spec.ts SERVO).
    assert.deepEqual(gains(), Array.from({ length: 14 }, () => [1.1, -1.1]));
    assert.deepEqual(gains(2), Array.from({ length: 14 }, () => [2, -2]));
  });

  it('a model with no IMU sensors gives the loop the same gyro and gravity, from its trunk', () => {
    const reading = (noSensors: boolean): number[] => {
      const { scene, walk } = exported({ noSensors });
      const model = userModel({ mjcf: scene }, walk);
      return withPlant({ seed: 3, tilt: { pitch: 0.3 }, ...(model !== undefined ? { model } : {}) }, (plant) => {
        // Tilted and let go: it tips, so the gyro reads something.
        for (let i = 0; i < 10; i++) {
          plant.send(Float64Array.from(LEGACY_HOME));
          plant.advance(PERIOD);
        }
        const frame = plant.read();
        return [...(frame?.gyro ?? []), ...(frame?.gravity ?? [])];
      });
    };
    const withImu = reading(false);
    const without = reading(true);
    assert.ok(Math.hypot(withImu[0] ?? 0, withImu[1] ?? 0, withImu[2] ?? 0) > 0.1, `gyro ${withImu.slice(0, 3).join(', ')}`);
    // The exported IMU site is parallel to the trunk: the two readings are the same numbers.
    withImu.forEach((v, i) => assert.ok(Math.abs(v - (without[i] ?? Number.NaN)) < 1e-9, `reading ${i}: ${v} vs ${without[i]}`));
  });

  it("a model lacking one of the walk policy's joints is refused in one line naming the file, the joint and the list", async () => {
    const { scene, walk } = exported({ renameJoint: { from: 'duck_left_knee', to: 'knee_l' } });
    const message = await refusal({ mjcf: scene }, walk);
    assert.match(message, /^microduck:mujoco: \S+scene\.xml has no joint "duck_left_knee" \(the walk policy's joints: duck_left_hip_yaw, .*duck_right_ankle\)$/);
  });

  it('a model file that does not exist, or does not compile, is refused in one line', async () => {
    const missing = join(tempDir('quackd-mjcf-'), 'nope', 'scene.xml');
    assert.equal(await refusal({ mjcf: missing }), `microduck:mujoco: ${missing}: no such file`);
    const dir = tempDir('quackd-mjcf-');
    const broken = join(dir, 'broken.xml');
    writeFileSync(broken, '<mujoco><worldbody><body><geom type="box" size="0.1 0.1 0.1"/></worldbody></mujoco>');
    assert.match(await refusal({ mjcf: broken }), /^microduck:mujoco: \S+broken\.xml does not compile: XML parse error/);
    const noMesh = join(dir, 'no-mesh.xml');
    writeFileSync(noMesh, '<mujoco><asset><mesh name="m" file="gone.stl"/></asset><worldbody><geom type="mesh" mesh="m"/></worldbody></mujoco>');
    assert.match(await refusal({ mjcf: noMesh }), /^microduck:mujoco: \S+no-mesh\.xml does not compile: .*'gone\.stl'/);
    mkdirSync(join(dir, 'a-folder.xml'));
    assert.match(await refusal({ mjcf: join(dir, 'a-folder.xml') }), /a-folder\.xml: not a file/);
  });

  it('the names of its parts are settings of the robot, refused without mjcf and when the model has no such part', async () => {
    assert.match(await refusal({ mjcf_gyro: 'imu_gyro' }), /^microduck:mujoco: mjcf_gyro: names a part of a model of your own: give mjcf too$/);
    const { scene, walk } = exported();
    assert.match(await refusal({ mjcf: scene, mjcf_gyro: 'no_such_gyro' }, walk), /scene\.xml has no gyro sensor "no_such_gyro"$/);
    assert.match(await refusal({ mjcf: scene, mjcf_camera: 'eye' }, walk), /scene\.xml has no site or camera "eye"/);
  });

  it('quackd config check shows the mjcf setting and where it came from; a run on a missing model says why in one line', async () => {
    const home = tempDir('quackd-home-');
    const model = join(home, 'models', 'scene.xml');
    writeFileSync(join(home, 'config.yaml'), `robots:\n  mine:\n    body: microduck:mujoco\n    mjcf: ${model}\n`);
    const check = await quackd(['config', 'check'], { env: { QUACKD_HOME: home } });
    assert.equal(check.code, 0, check.stdout + check.stderr);
    assert.match(check.stdout, new RegExp(`^  mine +microduck:mujoco .*\\bmjcf ${model.replaceAll('/', '\\/')} \\(file\\)$`, 'm'));
    const run = await quackd(['run', 'hello-world', '--robot', 'mine'], { env: { QUACKD_HOME: home } });
    assert.equal(run.code, 3, run.stdout + run.stderr);
    assert.match(run.stdout, new RegExp(`^FAIL error — microduck:mujoco: ${model.replaceAll('/', '\\/')}: no such file · `, 'm'));
  });
});

const MJCF = process.env['QUACKD_MJCF'];
const POLICY_DIR = process.env['QUACKD_POLICY_DIR'];

describe('microduck:mujoco on QUACKD_MJCF', { skip: MJCF === undefined ? 'set QUACKD_MJCF=/path/scene.xml (and QUACKD_POLICY_DIR=/path/set) to open a model of your own' : false }, () => {
  it('opens it through the mjcf setting, the duck where the seed puts it and upright', async () => {
    const walk = POLICY_DIR !== undefined ? join(resolve(POLICY_DIR), 'walk') : undefined;
    const body = await createMujocoBody({ seed: 3, settings: { mjcf: MJCF }, ...(walk !== undefined ? { policies: { walk } } : {}) });
    try {
      const duck = body.frame().state['duck'] as { x: number; y: number; tilt_deg: number };
      const layout = layoutForSeed(3);
      assert.ok(Math.abs(duck.x - layout.duck.x) < 0.05 && Math.abs(duck.y - layout.duck.y) < 0.05 && duck.tilt_deg < 10, JSON.stringify(duck));
    } finally {
      await body.close();
    }
  });

  // Through the verbs, with what they send (the walk manifest's nominal, else the top of its range), not a speed of the test's own.
  for (const seed of [1, 7, 42]) {
    it(`walk 1.0 walks ≥ 1.0 m in ≤ 12 s of twin time, and with the walk policy in the turn slot turn 90 turns within 15° (seed ${seed})`, { skip: POLICY_DIR === undefined ? 'set QUACKD_POLICY_DIR too' : false }, async () => {
      const walk = join(resolve(POLICY_DIR ?? '.'), 'walk');
      const body = await createMujocoBody({ seed, settings: { mjcf: MJCF }, policies: { walk, turn: walk } }, trialLayout(seed));
      try {
        const t0 = Number(body.frame().state['t_s']);
        const w = await body.perform({ verb: 'walk', args: { metres: 1.0 } });
        const took = Number(body.frame().state['t_s']) - t0;
        assert.ok(w.ok && Number(w.data?.['walked_m']) >= 1.0 && took <= 12, `${w.summary} in ${took.toFixed(1)} s`);
        const t = await body.perform({ verb: 'turn', args: { degrees: 90 } });
        assert.ok(t.ok && Math.abs(Number(t.data?.['turned_deg']) - 90) <= 15, t.summary);
      } finally {
        await body.close();
      }
    });
  }
});
