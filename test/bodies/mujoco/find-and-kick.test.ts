/**
 * find-and-kick with the fake pilot on the twin, through `quackd run` as a user types it: one
 * seed from each class of failure it had before (issue 22), named by the class. The rate over
 * seeds 1–200 is the bench's (bench/find-and-kick.ts): a twin run takes seconds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { quackd } from '../../helpers/quackd.js';
import { tempDir } from '../../helpers/tmp.js';

const CLASSES: readonly (readonly [string, number])[] = [
  ['the search never saw the ball from where the duck started (it walked back and forth over the same floor)', 1],
  ['one long walk to the kick spot ended off the kick\'s reach, and kicks from there moved the ball 0.04 m', 20],
  ['one long walk ended on the ball, and kicks from there moved it 0.25 m, then aiming swung to and fro', 33],
  ['aiming by the camera at close range swung left and right until the budget ran out (the camera is ahead of the trunk)', 13],
  ['the blind last leg, walked from the stride the last turn left, drifted the ball off the reach, and looks and steps back spent the budget', 9],
  ['a walk started from the stride the turn before it left fell', 98],
];

/** find-and-kick.duck's seconds budget. */
const RUN_BUDGET_MS = 120_000;

describe('find-and-kick on microduck:mujoco with the fake pilot', () => {
  for (const [failure, seed] of CLASSES) {
    it(`succeeds where ${failure} (seed ${seed})`, async () => {
      // The run's own wall budget (the duck's 120 s) decides a slow run; the helper's 20 s default
      // cut a run the twin took 20 s over under load (seen in CI beside other work).
      const r = await quackd(['run', 'find-and-kick', '--robot', 'microduck:mujoco', '--seed', String(seed), '--no-memory', '--json'], { env: { QUACKD_HOME: tempDir('quackd-home-') }, timeoutMs: RUN_BUDGET_MS + 30_000 });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      const out = JSON.parse(r.stdout) as { outcome: string; reason: string };
      assert.equal(out.outcome, 'success', out.reason);
      assert.match(out.reason, /ball_displaced_m 0\.\d+ ≥ 0\.3/);
    });
  }
});
