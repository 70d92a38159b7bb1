/**
 * find-and-kick with the fake pilot on sim2d, as `quackd run` composes it (startRun): on seeds
 * nobody tuned it on it succeeds on at least 95 % (the bench measures 1–200), and the layouts
 * that failed before each fix, one per class of failure, succeed with the ball really moved.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findDuck } from '../../src/ducks/find.js';
import { createFakeProvider } from '../../src/pilot/providers/fake.js';
import { startRun, type RunReport } from '../../src/run/start-run.js';
import { noTtyGate } from '../../src/safety/gate.js';
import type { TranscriptEvent } from '../../src/transcript/events.js';
import { tempDir } from '../helpers/tmp.js';

async function run(seed: number, dir: string): Promise<{ report: RunReport; verbs: Extract<TranscriptEvent, { type: 'verb_result' }>[] }> {
  const verbs: Extract<TranscriptEvent, { type: 'verb_result' }>[] = [];
  const report = await startRun({ duck: findDuck('find-and-kick'), robot: 'microduck:sim2d', seed, provider: createFakeProvider(), gate: noTtyGate, dryRun: false, transcriptsDir: dir, signal: new AbortController().signal, onEvent: (e) => e.type === 'verb_result' && verbs.push(e) });
  return { report, verbs };
}

describe('find-and-kick with the fake pilot on microduck:sim2d', () => {
  it('succeeds on at least 95 % of seeds 5001–5200, seeds it was never tuned on', async () => {
    const dir = tempDir('quackd-kick-');
    const failed: string[] = [];
    for (let seed = 5001; seed <= 5200; seed++) {
      const { report } = await run(seed, dir);
      if (report.outcome.status !== 'success') failed.push(`${seed}: ${report.outcome.reason}`);
    }
    assert.ok(failed.length <= 10, `${failed.length} of 200 failed:\n${failed.join('\n')}`);
  });

  it('goes round the sofa when it stands between the duck and the ball, instead of walking into it again (seed 32)', async () => {
    const { report, verbs } = await run(32, tempDir('quackd-kick-'));
    assert.equal(report.outcome.status, 'success', report.outcome.reason);
    const blocked = verbs.findIndex((v) => v.data?.['blocked_by'] === 'sofa');
    assert.ok(blocked >= 0, 'the sofa blocked a walk on this layout');
    assert.notEqual(verbs[blocked + 1]?.verb, 'walk', 'the next move is a turn aside, not the same walk');
  });

  it('finds a ball the sofa hides from where the duck stands by moving to new ground a different way each time (seed 373)', async () => {
    const { report, verbs } = await run(373, tempDir('quackd-kick-'));
    assert.equal(report.outcome.status, 'success', report.outcome.reason);
    assert.equal(verbs[0]?.data?.['ball_visible'], false, 'the first scan saw nothing');
  });
});
