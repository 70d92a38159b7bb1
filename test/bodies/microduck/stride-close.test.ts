/**
 * A real duck's walk after a walk: the gait closes its stride before the stand (gait-settle.ts).
 * Stopped mid-step, the feet stood one ahead of the other, and the next walk, started from there
 * as if from feet side by side, fell 1-2.5 s in: once in a clean-clone CI run on the servo bus
 * after a held duck's stand, once on the host firmware after a 0.09 m walk. Here the path a
 * servo-bus or bridge duck runs (runPolicyVerb: the walk, the stride, the stand eased home), in
 * the lock-step twin whose servos take each goal two periods late, then held still, then a 3 s
 * walk: without the closing stride 5 of these 24 fell (seeds 1-6, walks of 0.3-0.9 s).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runPolicyVerb } from '../../../src/bodies/microduck/policy-verb.js';
import { ControlLoop } from '../../../src/control/control-loop.js';
import type { Json } from '../../../src/control/module-spec.js';
import { holdSkill } from '../../../src/control/skills/specs.js';
import { EventBus } from '../../../src/runtime/events.js';
import { bundledPolicyDir } from '../../../src/policy/bundled.js';
import { trialLayout } from '../../../src/policy/make/twin-trials.js';

const TWIN = new URL('./late-servo-twin.ts', import.meta.url).href;
const halt = new AbortController().signal;
/** The seed's heading on open floor (the tuner's trial layout), as the plant module's options. */
function sceneOf(seed: number): Json {
  const { duck, ball } = trialLayout(seed);
  return { duck: { x: duck.x, y: duck.y, heading: duck.heading }, ball: { x: ball.x, y: ball.y } };
}
const walkFor = (ms: number) => ({ verb: 'walk', slot: 'walk' as const, command: { vx: 0.3, vy: 0, vyaw: 0 }, until: { kind: 'duration' as const }, timeoutMs: ms });

describe('a walk after a walk, servos two periods late', () => {
  it('stays up in every seed and at every point of the stride the first walk stopped', async () => {
    const fell: string[] = [];
    for (let seed = 1; seed <= 6; seed++) {
      for (const ms of [300, 500, 700, 900]) {
        // A fresh twin each: the duck on open floor, 1.5 m from anything.
        const loop = await ControlLoop.start({ plant: { module: TWIN, options: { seed, late: 2, layout: sceneOf(seed) } }, events: new EventBus(), mode: 'lockstep' });
        try {
          const verbs = { loop, dir: bundledPolicyDir, headingHold: undefined };
          assert.equal((await runPolicyVerb(verbs, walkFor(ms), halt)).outcome, 'done', `seed ${seed}: the first walk`);
          assert.equal((await loop.run(holdSkill(2000), halt)).outcome, 'done');
          const again = await runPolicyVerb(verbs, walkFor(3000), halt);
          if (again.outcome !== 'done') fell.push(`seed ${seed} after ${ms} ms: ${again.outcome === 'failed' ? again.message : again.outcome}`);
        } finally {
          await loop.close();
        }
      }
    }
    assert.deepEqual(fell, []);
  });
});
