/** sim2d with `camera: synthetic`: search_scan through the rendered camera and the colour detector. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cameraScan } from '../../src/bodies/camera-scan.js';
import { SIM2D_BALL_LOOK } from '../../src/bodies/microduck/sim2d/camera-scan.js';
import { createSim2dBody } from '../../src/bodies/microduck/sim2d/sim2d-body.js';
import { SyntheticCamera } from '../../src/camera/synthetic-camera.js';
import { findDuck } from '../../src/ducks/find.js';
import { createFakeProvider } from '../../src/pilot/providers/fake.js';
import { startRun } from '../../src/run/start-run.js';
import { noTtyGate } from '../../src/safety/gate.js';
import { tempDir } from '../helpers/tmp.js';
import { bodyContract } from '../contract/body.contract.js';

const scan = { verb: 'search_scan', args: {} } as const;

bodyContract('microduck:sim2d with camera: synthetic', () => Promise.resolve(createSim2dBody({ seed: 7, settings: { camera: 'synthetic' } })), { safeVerb: { verb: 'quack', args: {} }, measures: ['ball_displaced_m', 'quacks'] });

describe('sim2d search_scan by camera', () => {
  it('finds the ball after the same turns as the room says, within ±5° and ±15 %, in 30 seeds', async () => {
    for (let seed = 1; seed <= 30; seed++) {
      const oracle = await createSim2dBody({ seed }).perform(scan);
      const body = createSim2dBody({ seed, settings: { camera: 'synthetic' } });
      const seen = await body.perform(scan);
      await body.close();
      const [o, s] = [oracle.data ?? {}, seen.data ?? {}];
      assert.equal(s['measured_by'], 'camera');
      assert.equal(s['ball_visible'], o['ball_visible'], `seed ${seed}: ${seen.summary} / ${oracle.summary}`);
      assert.equal(s['turned_deg'], o['turned_deg'], `seed ${seed}`);
      if (o['ball_visible'] !== true) continue;
      assert.match(seen.summary, /^ball found at bearing .*, \d\.\d\d m \(camera, \d+ px\)$/);
      assert.ok(Math.abs(Number(s['ball_bearing_deg']) - Number(o['ball_bearing_deg'])) <= 5, `seed ${seed}: ${seen.summary} / ${oracle.summary}`);
      assert.ok(Math.abs(Number(s['ball_distance_m']) / Number(o['ball_distance_m']) - 1) <= 0.15, `seed ${seed}: ${seen.summary} / ${oracle.summary}`);
    }
  });

  it('a camera that fails ends the scan with its one line', async () => {
    const camera = new SyntheticCamera(() => ({ width: 1, height: 1, rgb: new Uint8Array(3) }));
    await camera.close();
    const result = await cameraScan({ camera, look: SIM2D_BALL_LOOK, turn: () => undefined });
    assert.deepEqual(result, { ok: false, summary: 'camera synthetic is closed', data: { ball_visible: false, camera_failed: 'gone' } });
  });

  it('find-and-kick with the fake pilot succeeds by camera where it does by the room (seeds 5001–5012)', async () => {
    const dir = tempDir('quackd-kick-camera-');
    const outcomes = async (bodySettings?: Record<string, unknown>): Promise<string[]> => {
      const out: string[] = [];
      for (let seed = 5001; seed <= 5012; seed++) {
        const report = await startRun({ duck: findDuck('find-and-kick'), robot: 'microduck:sim2d', seed, provider: createFakeProvider(), gate: noTtyGate, dryRun: false, transcriptsDir: dir, signal: new AbortController().signal, ...(bodySettings ? { bodySettings } : {}) });
        out.push(report.outcome.status);
      }
      return out;
    };
    const byRoom = await outcomes();
    const byCamera = await outcomes({ camera: 'synthetic' });
    const wins = (list: string[]) => list.filter((s) => s === 'success').length;
    assert.ok(wins(byCamera) >= wins(byRoom) - 1, `by camera ${byCamera.join(',')}; by the room ${byRoom.join(',')}`);
    assert.ok(wins(byCamera) >= 10, byCamera.join(','));
  });
});
