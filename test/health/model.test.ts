/**
 * `quackd health --robot NAME` on a microduck:mujoco robot checks its model as a run would open
 * it: a missing file, a file that does not compile and a model lacking a policy joint each fail
 * the `model` line in one line naming what is wrong (exit 1); every slot whose manifest names its
 * joints is matched against the model's, by name and in the order the twin drives them. Driven
 * in-process as a user types it, with a temp QUACKD_HOME whose config.yaml names the robot.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { bundledPolicyDir } from '../../src/policy/bundled.js';
import { MICRODUCK_JOINTS } from '../../src/policy/microduck.js';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';
import { RENAMED, exportDuck } from '../bodies/mujoco/own-model.js';
import { policyFolder } from '../policy/policy-folders.js';

interface Line {
  readonly check: string;
  readonly status: string;
  readonly detail: string;
}

/** `quackd health --robot duck --json` with this robot config: its exit code and its lines by name. */
async function health(robot: string): Promise<{ code: number | null; line: (name: string) => Line }> {
  const home = tempDir('quackd-health-model-');
  writeFileSync(join(home, 'config.yaml'), `robots:\n  duck:\n    body: microduck:mujoco\n${robot}`);
  const r = await quackd(['health', '--robot', 'duck', '--json'], { env: { QUACKD_HOME: home } });
  const lines = JSON.parse(r.stdout) as Line[];
  return {
    code: r.code,
    line: (name) => {
      const found = lines.find((l) => l.check === name);
      assert.ok(found !== undefined, `no ${name} line in ${r.stdout}`);
      return found;
    },
  };
}

/** A copy of a bundled slot whose manifest lists these joint names. */
function slotNaming(slot: 'walk' | 'turn' | 'stand' | 'kick_left' | 'kick_right', joints: readonly string[]): string {
  const manifest = JSON.parse(readFileSync(join(bundledPolicyDir(slot), 'manifest.json'), 'utf8')) as Record<string, unknown>;
  return policyFolder(slot, { ...manifest, joints });
}

describe('quackd health: the model of a microduck:mujoco robot', () => {
  it('a model file that does not exist fails in one line, and health exits 1', async () => {
    const missing = join(tempDir('quackd-health-model-'), 'no', 'such', 'file.xml');
    const r = await health(`    mjcf: ${missing}\n`);
    assert.equal(r.code, 1);
    assert.deepEqual(r.line('model'), { check: 'model', status: 'fail', detail: `${missing}: no such file` });
    // The rest still report: the slots load, the robot is named.
    assert.equal(r.line('config').detail.endsWith('robot duck (microduck:mujoco)'), true);
    assert.equal(r.line('policies').status, 'ok');
  });

  it('a model that does not compile, or lacks a policy joint, fails naming why', async () => {
    const broken = join(tempDir('quackd-health-model-'), 'broken.xml');
    writeFileSync(broken, '<mujoco><worldbody><body><geom type="box" size="0.1 0.1 0.1"/></worldbody></mujoco>');
    const bad = await health(`    mjcf: ${broken}\n`);
    assert.equal(bad.code, 1);
    assert.match(bad.line('model').detail, /^\S+broken\.xml does not compile: XML parse error/);
    // quackd's duck with two joints renamed: both are named, with the list the walk policy gives.
    const { scene, walk } = exportDuck(tempDir('quackd-health-model-'), { renameJoint: { from: 'duck_left_knee', to: 'knee_l' } });
    writeFileSync(scene.replace('scene.xml', 'duck.xml'), readFileSync(scene.replace('scene.xml', 'duck.xml'), 'utf8').replaceAll('"duck_neck_pitch"', '"neck"'));
    const lacking = await health(`    mjcf: ${scene}\n    policies:\n      walk: ${walk}\n`);
    assert.equal(lacking.code, 1);
    assert.equal(lacking.line('model').status, 'fail');
    assert.match(lacking.line('model').detail, /^\S+scene\.xml has no joints "duck_left_knee", "duck_neck_pitch" \(the walk policy's joints: duck_left_hip_yaw, .*duck_right_ankle\)$/);
  });

  it("a model the twin can drive is ok; each slot naming joints the model lacks, or in another order, fails by name", async () => {
    const { scene, walk } = exportDuck(tempDir('quackd-health-model-'));
    const good = await health(`    mjcf: ${scene}\n    policies:\n      walk: ${walk}\n`);
    assert.equal(good.code, 0, JSON.stringify(good.line('model')));
    assert.deepEqual(good.line('model'), { check: 'model', status: 'ok', detail: `${scene} (14 policy joints on servos): every slot's joints are its own, in its order` });
    // A kick trained on the Microduck's own names, and a turn whose list swaps the knees.
    const swapped = RENAMED.map((j) => (j === 'duck_left_knee' ? 'duck_right_knee' : j === 'duck_right_knee' ? 'duck_left_knee' : j));
    const r = await health(`    mjcf: ${scene}\n    policies:\n      walk: ${walk}\n      kick_left: ${slotNaming('kick_left', MICRODUCK_JOINTS)}\n      turn: ${slotNaming('turn', swapped)}\n`);
    assert.equal(r.code, 1);
    const model = r.line('model');
    assert.equal(model.status, 'fail');
    assert.equal(
      model.detail,
      `turn: its joint 4 is "duck_right_knee" but the twin drives "duck_left_knee" there (the twin's order is the walk policy's); kick_left: the model has no joints ${MICRODUCK_JOINTS.map((j) => `"${j}"`).join(', ')} (its manifest's joints)`,
    );
  });

  it("quackd's own duck is checked against the slots without compiling it; a body with no model says so", async () => {
    const own = await health('');
    assert.deepEqual(own.line('model'), { check: 'model', status: 'ok', detail: "quackd's own duck (no mjcf): every slot's joints are its own, in its order" });
    const renamed = await health(`    policies:\n      stand: ${slotNaming('stand', RENAMED)}\n`);
    assert.equal(renamed.line('model').status, 'fail');
    assert.match(renamed.line('model').detail, /^stand: the model has no joints "duck_left_hip_yaw", /);
    const home = tempDir('quackd-health-model-');
    const sim = await quackd(['health', '--json'], { env: { QUACKD_HOME: home } });
    assert.deepEqual((JSON.parse(sim.stdout) as Line[]).find((l) => l.check === 'model'), { check: 'model', status: 'ok', detail: 'none: microduck:sim2d has no model file' });
  });
});
