/**
 * The Open Duck Mini v2 reference walk's memory in the control loop's policy skill: its three past
 * actions, its last motor targets and its imitation phase reach each tick's observation as the
 * reference runtime keeps them, and carry between verbs as the previous action does. The policy
 * here is a probe: each of its actions is one observation entry (or a count), so the targets the
 * plant was sent say what it observed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { policySkill } from '../../src/control/skills/specs.js';
import { GraphBuilder } from '../../src/policy/make/onnx-graph.js';
import { MICRODUCK_ACTIONS } from '../../src/policy/microduck.js';
import { policyFolder } from '../policy/policy-folders.js';
import { startRig } from './rig.js';

const N = MICRODUCK_ACTIONS;
// Observation indices (observation-open-duck.ts).
const ACCEL_Z = 5;
const VYAW = 8;
const LAST = 41;
const BEFORE = 55;
const BEFORE_THAT = 69;
const TARGETS = 83;
const PHASE = 99;

/** action[0] accel z, [1] [2] the phase, [3] vyaw, [4] the last action[4] + 1 (a count), [5] [6] the two before it, [7] the last target[4]. */
function probe(): string {
  const g = new GraphBuilder('obs', 101);
  const picks: [number, number][][] = [[[ACCEL_Z, 1]], [[PHASE, 1]], [[PHASE + 1, 1]], [[VYAW, 1]], [[LAST + 4, 1]], [[BEFORE + 4, 1]], [[BEFORE_THAT + 4, 1]], [[TARGETS + 4, 1]]];
  while (picks.length < N) picks.push([]);
  const picked = g.pick(picks, 'probe');
  const count = g.op('Add', [picked, g.row('one', Array.from({ length: N }, (_, i) => (i === 4 ? 1 : 0)))]);
  const onnx = g.model({ output: count, outputName: 'actions', outputWidth: N, name: 'probe', doc: 'observes', metadata: {} });
  return policyFolder(onnx, { obs_len: 101, home: new Array<number>(N).fill(0), command: { phase_steps: 4 } });
}

const WIDE = { joints: N, min: -100, max: 100, maxVelocity: 1e6, followSpeed: 1e6 };
// Five ticks a verb (0, 20 … 80 ms; done at 100).
const fiveTicks = (dir: string, vyaw = 0) => policySkill(dir, { vx: 0, vy: 0, vyaw }, { kind: 'duration' }, 100, false);
const r = (v: number | undefined) => Math.round((v ?? Number.NaN) * 1e4) / 1e4 + 0;

describe('the Open Duck Mini v2 walk in the loop', () => {
  it('observes the accelerometer, its past actions, its last targets and the phase as the reference keeps them', async (t) => {
    const dir = probe();
    const rig = await startRig(t, { ...WIDE, accel: [0.1, -0.2, 9.7] }, { mode: 'lockstep' });
    assert.equal((await rig.loop.run(fiveTicks(dir, 0.5))).outcome, 'done');
    assert.equal((await rig.loop.run(fiveTicks(dir))).outcome, 'done');
    // The policy's ticks: a verb's last tick ('done') holds what it sent before.
    const sends = (await rig.log()).sends.filter((s, i, all) => s.targets.some((v) => v !== 0) && s.targets.some((v, j) => v !== all[i - 1]?.targets[j]));
    assert.equal(sends.length, 10);
    // targets = home (zeros) + 0.25 × action.
    const seen = sends.map((s) => s.targets.slice(0, 8).map((v) => r(v / 0.25)));
    for (const [tick, s] of seen.entries()) {
      const n = tick + 1;
      assert.equal(s[0], 9.7, `tick ${n}: the accelerometer's z`);
      assert.equal(s[3], tick < 5 ? 0.5 : 0, `tick ${n}: vyaw`);
      assert.equal(s[4], n, `tick ${n}: the count (the last action carried across the verbs)`);
      assert.equal(s[5], Math.max(0, n - 2), `tick ${n}: the action before the last`);
      assert.equal(s[6], Math.max(0, n - 3), `tick ${n}: the one before that`);
      assert.equal(s[7], r(0.25 * (n - 1)), `tick ${n}: the last target`);
    }
    // The phase, 4 steps a cycle: [0, 0] on a verb's first tick, then the count before each advance; afresh each verb.
    const phase = seen.map((s) => [s[1], s[2]]);
    const cycle = [[0, 0], [0, 1], [-1, 0], [0, -1], [1, 0]];
    assert.deepEqual(phase, [...cycle, ...cycle]);
  });

  it('a body without an accelerometer fails the verb, saying why, and sends nothing', async (t) => {
    const dir = probe();
    const rig = await startRig(t, WIDE, { mode: 'lockstep' });
    const result = await rig.loop.run(fiveTicks(dir));
    assert.equal(result.outcome, 'failed');
    assert.match(result.outcome === 'failed' ? result.message : '', /obs_layout open-duck-mini-v2 observes the trunk's accelerometer, and this body reads none/);
    assert.equal((await rig.log()).sends.filter((s) => s.targets.some((v) => v !== 0)).length, 0);
  });
});
