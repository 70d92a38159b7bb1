import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadMujoco, type Mujoco } from '../../src/bodies/microduck/mujoco/wasm.js';
import { FALL_TILT } from '../../src/policy/make/twin-loop.js';
import { kickTrial, loadBundledPolicies, standTrial, turnTrial, walkTrial, WALK_COMMAND, type PolicySet } from '../../src/policy/make/twin-trials.js';

// The committed bundled policies (real ONNX on onnxruntime-node) closed-loop in the real twin.
// Deterministic physics: the same figures every run. The tuner scores on seeds 2, 3 and 5; these
// are other headings.
const SEEDS = [1, 7, 42];
const deg = (rad: number): number => (rad * 180) / Math.PI;

let mujoco: Mujoco;
let policies: PolicySet & { close(): Promise<void> };
before(async () => {
  mujoco = await loadMujoco();
  policies = await loadBundledPolicies();
});
after(async () => {
  await policies.close();
});

describe('bundled policies in the MuJoCo twin', () => {
  for (const seed of SEEDS) {
    it(`walk at vx ${WALK_COMMAND.vx} m/s goes ≥ 0.5 m forward in 10 s without falling (seed ${seed})`, async () => {
      const w = await walkTrial(mujoco, policies, seed, 10);
      assert.equal(w.run.stoppedBy, 'time', `stopped by ${w.run.stoppedBy} at ${w.run.seconds} s`);
      assert.ok(w.maxTilt < FALL_TILT, `tilt reached ${deg(w.maxTilt).toFixed(1)}°`);
      assert.ok(w.forward >= 0.5, `forward ${w.forward.toFixed(3)} m (sideways ${w.sideways.toFixed(3)} m, yaw ${deg(w.yaw).toFixed(1)}°)`);
    });
  }

  it('walk clamps a faster command to its range (vx 0.3 m/s: faster falls) and still walks', async () => {
    const w = await walkTrial(mujoco, policies, 1, 10, { vx: 1, vy: 0, vyaw: 0 });
    assert.ok(!w.run.fell && w.forward >= 0.5, `forward ${w.forward.toFixed(3)} m, tilt ${deg(w.maxTilt).toFixed(1)}°`);
  });

  for (const seed of SEEDS) {
    for (const goal of [90, -90]) {
      it(`turn by ${goal}° stops within 15° of the goal (seed ${seed})`, async () => {
        const t = await turnTrial(mujoco, policies, seed, (goal * Math.PI) / 180);
        assert.ok(!t.fell, `fell (tilt ${deg(t.maxTilt).toFixed(1)}°)`);
        assert.ok(Math.abs(deg(t.error)) < 15, `turned ${deg(t.turned).toFixed(1)}° in ${t.turnSeconds.toFixed(2)} s`);
      });
    }
  }

  for (const seed of SEEDS) {
    for (const side of ['left', 'right'] as const) {
      it(`kick_${side} moves a ball in front of the ${side} foot ≥ 0.2 m (seed ${seed})`, async () => {
        const k = await kickTrial(mujoco, policies, seed, side);
        assert.ok(!k.fell, `fell (tilt ${deg(k.maxTilt).toFixed(1)}°)`);
        assert.ok(k.ball >= 0.2, `ball moved ${k.ball.toFixed(3)} m (the foot came within ${k.reach.toFixed(3)} m of its centre)`);
      });
    }
  }

  for (const seed of SEEDS) {
    it(`stand holds 5 s (seed ${seed})`, async () => {
      const s = await standTrial(mujoco, policies, seed, 5);
      assert.equal(s.seconds, 5);
      assert.ok(deg(s.maxTilt) < 10, `tilt reached ${deg(s.maxTilt).toFixed(1)}°`);
      assert.ok(s.drift < 0.02, `crept ${s.drift.toFixed(3)} m`);
    });
  }
});
