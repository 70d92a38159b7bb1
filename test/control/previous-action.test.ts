/**
 * The previous action carries from one verb to the next in one loop, as the original runtimes
 * keep it across walk and stand; a new loop starts from zeros. The policy here counts: each
 * action is the previous one (its observation) + 0.01, so the targets say what it was given.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { policySkill } from '../../src/control/skills/specs.js';
import { OBS_LEN } from '../../src/policy/layouts.js';
import { GraphBuilder } from '../../src/policy/make/onnx-graph.js';
import { MICRODUCK_ACTIONS } from '../../src/policy/microduck.js';
import { policyFolder } from '../policy/policy-folders.js';
import { startRig } from './rig.js';

/** Previous action (obs 34..48) + 0.01, on the 51-input layout. */
function counter(): string {
  const g = new GraphBuilder('obs', OBS_LEN['microduck-51']);
  const previous = g.pick(Array.from({ length: MICRODUCK_ACTIONS }, (_, i) => [[34 + i, 1]] as const), 'previous');
  const out = g.op('Add', [previous, g.row('step', new Array<number>(MICRODUCK_ACTIONS).fill(0.01))]);
  const onnx = g.model({ output: out, outputName: 'actions', outputWidth: MICRODUCK_ACTIONS, name: 'counter', doc: 'counts', metadata: {} });
  return policyFolder(onnx, { obs_len: 51, action_scale: 1, home: new Array<number>(MICRODUCK_ACTIONS).fill(0) });
}

// Five ticks a verb (0, 20 … 80 ms; done at 100).
const fiveTicks = (dir: string) => policySkill(dir, { vx: 0, vy: 0, vyaw: 0 }, { kind: 'duration' }, 100);
const top = (sends: readonly { readonly targets: readonly number[] }[]): number => Math.round(Math.max(...sends.map((s) => s.targets[0] ?? 0)) * 100) / 100;

describe('the previous action', () => {
  it('carries across the verbs of one loop, and a new loop starts from zeros', async (t) => {
    const dir = counter();
    const rig = await startRig(t, { joints: MICRODUCK_ACTIONS }, { mode: 'lockstep' });
    assert.equal((await rig.loop.run(fiveTicks(dir))).outcome, 'done');
    assert.equal((await rig.loop.run(fiveTicks(dir))).outcome, 'done');
    // 0.01 … 0.05, then 0.06 … 0.10: the second verb began where the first ended.
    assert.equal(top((await rig.log()).sends), 0.1);

    const fresh = await startRig(t, { joints: MICRODUCK_ACTIONS }, { mode: 'lockstep' });
    assert.equal((await fresh.loop.run(fiveTicks(dir))).outcome, 'done');
    assert.equal(top((await fresh.log()).sends), 0.05);
  });
});
