/**
 * A duck that falls in the stand after a walk fell on the walk's account: the verb's result is the
 * walk and the stand together (their ticks, their time, the slots the loop missed in either), so
 * its line says how long the duck walked and whether the loop was late while it did.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GAIT_SETTLE_MS, standAfter } from '../../../src/bodies/microduck/gait-settle.js';
import { missedNote, ranSeconds } from '../../../src/bodies/microduck/policy-verb.js';
import type { VerbResult as LoopResult } from '../../../src/control/skill.js';

const halt = new AbortController().signal;
/** A loop whose one verb (the stand) ends as `stand` says. */
const loopEnding = (stand: LoopResult) => ({ runs: 0, run() { this.runs++; return Promise.resolve(stand); } });
const walked: LoopResult = { outcome: 'done', ticks: 120, endTick: 130, ranMs: 2480, missed: { slots: 4, longestGapMs: 100 } };
const fell: LoopResult = { outcome: 'failed', reason: 'fell', message: 'fell', ticks: 12, endTick: 143, ranMs: 220 };

describe('the stand after a gait', () => {
  it("a fall in it carries the walk's ticks, time and missed slots", async () => {
    const loop = loopEnding(fell);
    const r = await standAfter(loop, 'stand', GAIT_SETTLE_MS, walked, halt);
    assert.equal(loop.runs, 1);
    assert.equal(r.outcome, 'failed');
    assert.equal(r.ticks, 132);
    assert.equal(ranSeconds(r, 20), 2.7);
    assert.deepEqual(r.missed, { slots: 4, longestGapMs: 100 });
    assert.equal(missedNote(r), 'the control loop missed 4 ticks (a gap of 100 ms at worst: the host too busy)');
  });

  it("adds the stand's own missed slots, and keeps the longest gap of either", async () => {
    const r = await standAfter(loopEnding({ ...fell, missed: { slots: 2, longestGapMs: 160 } }), 'stand', GAIT_SETTLE_MS, walked, halt);
    assert.deepEqual(r.missed, { slots: 6, longestGapMs: 160 });
  });

  it('a stand that ends well leaves the walk its own result; a walk that failed is not stood after', async () => {
    assert.deepEqual(await standAfter(loopEnding({ outcome: 'done', ticks: 25, endTick: 156, ranMs: 480 }), 'stand', GAIT_SETTLE_MS, walked, halt), walked);
    const loop = loopEnding(fell);
    const stopped: LoopResult = { outcome: 'stopped', ticks: 40, endTick: 50, ranMs: 780 };
    assert.equal(await standAfter(loop, 'stand', GAIT_SETTLE_MS, stopped, halt), stopped);
    assert.equal(loop.runs, 0);
  });

  it('a fall with no missed slot in either says nothing of the loop', async () => {
    const r = await standAfter(loopEnding(fell), 'stand', GAIT_SETTLE_MS, { outcome: 'done', ticks: 120, endTick: 130, ranMs: 2480 }, halt);
    assert.equal(r.missed, undefined);
    assert.equal(missedNote(r), undefined);
  });
});
