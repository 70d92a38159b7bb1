/**
 * The control worker's ticks in a recording: every tick the loop ran is one /control/tick, the
 * measured joints and the IMU; the skill's asks are /joints/target, what the safety stage sent is
 * /joints/applied, and a target it cut is marked. Real worker, kinematic plant, lock-step.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RunRecorder } from '../../src/recording/run-recorder.js';
import { readIndexed, type JointState } from '../helpers/mcap.js';
import { tempDir } from '../helpers/tmp.js';
import { skill, startRig } from '../control/rig.js';

test('a verb on the control loop is recorded tick by tick: targets, applied targets, measured joints, IMU, the limited joint marked', async (t) => {
  const rig = await startRig(t, { joints: 3, maxVelocity: 1 }, { mode: 'lockstep' });
  const dir = tempDir();
  const recorder = await RunRecorder.open(dir, 'ticks', 'control', rig.events);
  assert.ok(recorder !== undefined);
  let stats = 0;
  rig.events.on('control:stats', (e) => (stats = e.stats.ticks));
  // 0.5 rad at once is past one period's travel (1 rad/s × 20 ms): the safety stage cuts it.
  const asks = [
    [0.5, 0, 0],
    [0.5, 0, 0],
    [0.04, 0, 0.01],
  ];
  assert.equal((await rig.loop.run(skill({ kind: 'script', targets: asks }))).outcome, 'done');
  await rig.log();
  const report = await recorder.close();
  const back = await readIndexed(report.path);
  const ticks = back.counts.get('/control/tick') ?? 0;
  assert.equal(ticks, stats, 'one /control/tick per tick the loop ran');
  assert.equal(back.counts.get('/joints/measured'), ticks);
  assert.equal(back.counts.get('/imu'), ticks);
  assert.equal(back.counts.get('/joints/target'), asks.length, 'a target per tick the skill asked');
  assert.equal(back.schemas.get('/joints/applied'), 'sensor_msgs/msg/JointState');
  const targets = back.messages.get('/joints/target') as JointState[];
  assert.deepEqual(
    targets.map((m) => m.position),
    asks,
  );
  const tickMsgs = back.messages.get('/control/tick') as { tick: number; limited: string[]; dropped: number }[];
  const limited = tickMsgs.filter((m) => m.limited.length > 0).map((m) => m.limited);
  assert.deepEqual(limited, [['j0'], ['j0']], 'the cut target marked on the two ticks that asked for the jump');
  const applied = back.messages.get('/joints/applied') as JointState[];
  const firstCut = applied.find((m) => Math.abs((m.position[0] ?? 0) - 0.02) < 1e-9);
  assert.ok(firstCut !== undefined, 'applied: one period of travel, not the jump');
  assert.equal(report.droppedTicks, 0);
  assert.ok(tickMsgs.every((m) => m.dropped === 0));
});
