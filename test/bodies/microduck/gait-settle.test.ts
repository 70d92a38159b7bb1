/**
 * A duck that falls in the stand after a walk fell on the walk's account: the verb's result is the
 * walk and the stand together (their ticks, their time, the slots the loop missed in either), so
 * its line says how long the duck walked and whether the loop was late while it did.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GAIT_SETTLE_MS, SETTLE_EASE_MS, settleAfterGait, standAfter } from '../../../src/bodies/microduck/gait-settle.js';
import type { ModuleSpec } from '../../../src/control/module-spec.js';
import { bundledPolicyDir } from '../../../src/policy/bundled.js';
import { readManifest } from '../../../src/policy/read-manifest.js';
import { missedNote, ranSeconds } from '../../../src/bodies/microduck/policy-verb.js';
import { policyFolder } from '../../policy/policy-folders.js';
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

/** A loop that records each verb it is given and ends them as `outcomes` says, in turn (then done). */
function recordingLoop(...outcomes: LoopResult[]) {
  const ran: { dir: string; command: unknown; timeoutMs: unknown; ease: unknown; hold: unknown }[] = [];
  return {
    ran,
    run(spec: ModuleSpec) {
      const o = spec.options as { dir: string; command: unknown; timeoutMs: unknown; ease_home_ms?: unknown; heading_hold?: unknown };
      ran.push({ dir: o.dir, command: o.command, timeoutMs: o.timeoutMs, ease: o.ease_home_ms, hold: o.heading_hold });
      return Promise.resolve(outcomes.shift() ?? { outcome: 'done' as const, ticks: 23, endTick: 200, ranMs: 440 });
    },
  };
}

describe('the stride a gait closes before the stand', () => {
  const [walk, stand] = [bundledPolicyDir('walk'), bundledPolicyDir('stand')];
  const period = readManifest(walk).manifest?.command?.period_s ?? Number.NaN;

  it("steps one period of the gait's phase in place, then stands eased home; the verb's result is the walk's", async () => {
    const loop = recordingLoop();
    const r = await settleAfterGait(loop, { gait: walk, stand }, 'walk', walked, halt);
    assert.deepEqual(loop.ran, [
      { dir: walk, command: { vx: 0, vy: 0, vyaw: 0 }, timeoutMs: Math.round(period * 1000), ease: undefined, hold: false },
      { dir: stand, command: { vx: 0, vy: 0, vyaw: 0 }, timeoutMs: GAIT_SETTLE_MS, ease: SETTLE_EASE_MS, hold: undefined },
    ]);
    assert.equal(r, walked);
  });

  it('a fall in the stride is the verb\'s, counting the walk, and no stand follows', async () => {
    const loop = recordingLoop(fell);
    const r = await settleAfterGait(loop, { gait: walk, stand }, 'turn', walked, halt);
    assert.equal(loop.ran.length, 1);
    assert.equal(r.outcome, 'failed');
    assert.equal(r.ticks, 132);
  });

  it('a gait without a phase period (the Open Duck Mini v2 walk counts its own) only stands; a kick neither', async () => {
    const own = policyFolder('walk', { obs_len: 101, action_len: 14, command: { phase_steps: 50 } });
    const loop = recordingLoop();
    await settleAfterGait(loop, { gait: own, stand: own }, 'walk', walked, halt);
    assert.deepEqual(loop.ran.map((v) => v.dir), [own]);
    assert.equal(loop.ran[0]?.ease, SETTLE_EASE_MS);
    await settleAfterGait(loop, { gait: walk, stand }, 'kick_left', walked, halt);
    assert.equal(loop.ran.length, 1);
  });
});
