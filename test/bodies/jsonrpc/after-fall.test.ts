/**
 * A fall's result says when the control loop was too late to run some of the verb's slots (a
 * loaded host): its servos were sent nothing meanwhile, which may be why the duck fell. A verb
 * that went well, or a fall with no gap, says nothing of it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fallResult } from '../../../src/bodies/microduck/jsonrpc/after-fall.js';
import { missedNote } from '../../../src/bodies/microduck/policy-verb.js';
import type { VerbResult as LoopResult } from '../../../src/control/skill.js';

const firmware = { torque: (on: boolean) => Promise.resolve({ torque: on }) };
const fell = (extra: Partial<Extract<LoopResult, { outcome: 'failed' }>> = {}): Extract<LoopResult, { outcome: 'failed' }> => ({ outcome: 'failed', reason: 'fell', message: 'fell', ticks: 30, endTick: 40, ranMs: 640, ...extra });

describe("a fall's result and the loop's missed ticks", () => {
  it('says how many ticks the loop missed and the longest gap, between the fall and the safe state', async () => {
    const r = await fallResult('walk 2.00 m', fell({ missed: { slots: 3, longestGapMs: 80 } }), 20, 71, firmware, 'limp');
    assert.equal(r.summary, 'walk 2.00 m: failed — fell after 0.6 s (tilted 71°); the control loop missed 3 ticks (a gap of 80 ms at worst: the host too busy); torque off, confirmed by the firmware');
  });

  it('says nothing of it for a fall with no gap, nor for a verb that went well through one', async () => {
    const r = await fallResult('walk 2.00 m', fell(), 20, 71, firmware, 'limp');
    assert.equal(r.summary, 'walk 2.00 m: failed — fell after 0.6 s (tilted 71°); torque off, confirmed by the firmware');
    assert.equal(missedNote({ outcome: 'done', ticks: 50, endTick: 60, ranMs: 1040, missed: { slots: 2, longestGapMs: 60 } }), undefined);
    assert.equal(missedNote(fell({ missed: { slots: 1, longestGapMs: 40 } })), 'the control loop missed 1 tick (a gap of 40 ms at worst: the host too busy)');
  });
});
