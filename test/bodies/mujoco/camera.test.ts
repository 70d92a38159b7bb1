/**
 * microduck:mujoco with `camera: synthetic`: the head camera's rendered frames and the colour
 * detector are what the twin sees (search_scan, observations), not the simulator's answer; a
 * scan's turns are the twin's walked turns; find-and-kick runs on them. The rate over many seeds
 * is the bench's (`bench/find-and-kick.ts --body mujoco --camera`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMujocoBody } from '../../../src/bodies/microduck/mujoco/mujoco-body.js';
import { findDuck } from '../../../src/ducks/find.js';
import { createFakeProvider } from '../../../src/pilot/providers/fake.js';
import { startRun } from '../../../src/run/start-run.js';
import { noTtyGate } from '../../../src/safety/gate.js';
import { tempDir } from '../../helpers/tmp.js';

const camera = { camera: 'synthetic' } as const;
const scan = { verb: 'search_scan', args: {} } as const;

/** Where the ball is from the trunk, from the twin's own frame (the truth the detector is held to). */
function truthFromTrunk(state: Record<string, unknown>): { ahead: number; left: number } {
  const duck = state['duck'] as { x: number; y: number; heading_deg: number };
  const ball = state['ball'] as { x: number; y: number };
  const h = (duck.heading_deg * Math.PI) / 180;
  const [dx, dy] = [ball.x - duck.x, ball.y - duck.y];
  return { ahead: dx * Math.cos(h) + dy * Math.sin(h), left: -dx * Math.sin(h) + dy * Math.cos(h) };
}

describe('microduck:mujoco camera: synthetic', () => {
  it('sees by the camera: a ball in front is found at once, where it is (±15 %), and snapshot has eyes', async () => {
    const body = await createMujocoBody({ seed: 7, settings: camera }, { duck: { x: 2, y: 2, heading: 0 }, ball: { x: 2.7, y: 2.15 } });
    try {
      assert.ok(body.eyes !== undefined);
      const found = await body.perform(scan);
      assert.equal(found.data?.['measured_by'], 'camera', found.summary);
      assert.equal(found.data?.['turned_deg'], 0);
      const seen = await body.observe();
      const truth = truthFromTrunk(body.frame().state);
      const [ahead, left] = [Number(seen.data['ball_ahead_m']), Number(seen.data['ball_left_m'])];
      assert.equal(seen.data['measured_by'], 'camera');
      const off = Math.hypot(ahead - truth.ahead, left - truth.left);
      assert.ok(off <= 0.15 * Math.hypot(truth.ahead, truth.left), `camera ${ahead}, ${left}; truth ${truth.ahead.toFixed(2)}, ${truth.left.toFixed(2)}`);
    } finally {
      await body.close();
    }
  });

  it('a ball behind is found after walked turns; a closed camera ends the scan in one line', async () => {
    const body = await createMujocoBody({ seed: 7, settings: camera }, { duck: { x: 2.5, y: 2, heading: 0 }, ball: { x: 1.5, y: 2.2 } });
    try {
      const found = await body.perform(scan);
      assert.equal(found.ok, true, found.summary);
      assert.match(found.summary, /^ball found at bearing .*\(camera, \d+ px\)$/);
      const turned = Number(found.data?.['turned_deg']);
      assert.ok(turned >= 120 && turned <= 210, `${turned}`);
      const { heading_deg } = body.frame().state['duck'] as { heading_deg: number };
      assert.ok(Math.abs(heading_deg) >= 100, `the twin turned its body: heading ${heading_deg}°`);
      await body.eyes?.camera.close();
      const failed = await body.perform(scan);
      assert.deepEqual(failed, { ok: false, summary: 'camera synthetic is closed', data: { ball_visible: false, camera_failed: 'gone' } });
    } finally {
      await body.close();
    }
  });

  it('find-and-kick with the fake pilot succeeds by the camera (seed 3)', async () => {
    const report = await startRun({ duck: findDuck('find-and-kick'), robot: 'microduck:mujoco', seed: 3, provider: createFakeProvider(), gate: noTtyGate, dryRun: false, transcriptsDir: tempDir('quackd-twin-camera-'), signal: new AbortController().signal, bodySettings: camera });
    assert.equal(report.outcome.status, 'success', JSON.stringify(report.outcome));
  });
});
