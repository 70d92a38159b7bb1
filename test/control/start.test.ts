/**
 * Nothing moves because a loop started: the first good reading's pose is held (even a joint found
 * past its limit), nothing is sent before it, and a loop left alone keeps sending that pose.
 * Also: a plant that cannot be made fails start() in one line and leaves no worker behind.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ControlLoop } from '../../src/control/control-loop.js';
import { ControlError } from '../../src/control/errors.js';
import { SKILLS, skill, sleep, startRig } from './rig.js';

const START = [0.1, -0.2, 1.5]; // joint 2 is past its max of 1

describe('starting the loop', () => {
  it('never moves a joint, and sends nothing before a good reading (real time)', async (t) => {
    const rig = await startRig(t, { start: START, failReads: [0, 1] });
    await sleep(200);
    const log = await rig.log();
    // Reads 0 and 1 failed: nothing was sent until read 2, and then only the pose read there.
    assert.ok(log.reads >= 5, `${log.reads} reads in 200 ms`);
    assert.equal(log.sends[0]?.read, 2);
    for (const s of log.sends) assert.deepEqual(s.targets, START);
    assert.equal(log.sends.length, log.reads - 2);
    assert.deepEqual(log.finalPos, START);
  });

  it('never moves a joint (lock-step: one tick to take the pose, then it waits for a verb)', async (t) => {
    const rig = await startRig(t, { start: START }, { mode: 'lockstep' });
    await sleep(100);
    const log = await rig.log();
    assert.equal(log.reads, 1);
    assert.deepEqual(log.sends, [{ read: 0, t: log.sends[0]?.t, targets: START }]);
    assert.deepEqual(log.finalPos, START);
  });

  it('starts a verb that came before the first good reading only after the pose is held', async (t) => {
    const rig = await startRig(t, { start: START, failReads: [0, 1, 2] }, { mode: 'lockstep' });
    const result = await rig.loop.run(skill({ kind: 'script', targets: [[0.12, -0.2, 1.5]] }));
    assert.equal(result.outcome, 'done');
    const { sends } = await rig.log();
    assert.deepEqual(
      sends.map((s) => [s.read, s.targets[0]]),
      [
        [3, 0.1],
        [4, 0.12],
        [5, 0.12],
      ],
    );
  });

  it('reports the plant that cannot be made, and ends its worker', async () => {
    await assert.rejects(
      ControlLoop.start({ plant: { module: SKILLS } }),
      (err: unknown) => err instanceof ControlError && err.kind === 'plant' && /has no createPlant\(\) export/.test(err.message),
    );
    await assert.rejects(ControlLoop.start({ plant: { module: './relative.js' } }), /is relative/);
  });
});
