/**
 * The joint table of a duck on a servo bus: the Open Duck Mini v2's as the Feetech default (its
 * reference runtime's ids in the policy order, rustypot_position_hwi.py), a table wired otherwise
 * checked in one line, and the angle a servo is sent for a joint with its direction and offset.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { OPEN_DUCK_MINI_V2, jointAngle, jointTableProblem, servoAngle } from '../../../src/bodies/microduck/servo-bus/joint-table.js';
import { quackd } from '../../helpers/quackd.js';

describe('the servo-bus joint table', () => {
  it("defaults to the Open Duck Mini v2's ids in the policy order, directions +1, offsets 0", () => {
    assert.deepEqual(
      OPEN_DUCK_MINI_V2.map((j) => `${j.name}:${j.id}`),
      ['left_hip_yaw:20', 'left_hip_roll:21', 'left_hip_pitch:22', 'left_knee:23', 'left_ankle:24', 'neck_pitch:30', 'head_pitch:31', 'head_yaw:32', 'head_roll:33', 'right_hip_yaw:10', 'right_hip_roll:11', 'right_hip_pitch:12', 'right_knee:13', 'right_ankle:14'],
    );
    assert.ok(OPEN_DUCK_MINI_V2.every((j) => j.direction === 1 && j.offset === 0 && j.min < j.max));
    assert.equal(jointTableProblem(OPEN_DUCK_MINI_V2), undefined);
  });

  it('refuses two joints on one id and a joint out of the policy order', () => {
    const twice = OPEN_DUCK_MINI_V2.map((j) => (j.name === 'right_knee' ? { ...j, id: 23 } : j));
    assert.equal(jointTableProblem(twice), 'right_knee and left_knee are both on servo 23');
    const swapped = [OPEN_DUCK_MINI_V2[1]!, OPEN_DUCK_MINI_V2[0]!, ...OPEN_DUCK_MINI_V2.slice(2)];
    assert.equal(jointTableProblem(swapped), 'joint 1 must be left_hip_yaw (the policy order), is left_hip_roll');
  });

  it('sends a reversed joint with its offset and reads it back as the joint angle', () => {
    const j = { ...OPEN_DUCK_MINI_V2[3]!, direction: -1 as const, offset: 0.1 };
    assert.equal(servoAngle(j, 0.5), -0.4);
    assert.equal(jointAngle(j, servoAngle(j, 0.5)), 0.5);
  });

  it("a config whose table is short is refused in one line before anything opens", async () => {
    const home = mkdtempSync(join(tmpdir(), 'quackd-joint-table-'));
    try {
      writeFileSync(join(home, 'config.yaml'), 'robots:\n  duck: { body: microduck:feetech, port: /nonexistent/bus, joints: [ { name: left_hip_yaw, id: 20, min: -1, max: 1 } ] }\n');
      const r = await quackd(['do', 'torque', 'off', '--yes', '--robot', 'duck'], { env: { QUACKD_HOME: home } });
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stderr, /^quackd: .*config\.yaml:2: robots\.duck\.joints: the joint table needs 14 joints in the policy order, has 1$/m);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
