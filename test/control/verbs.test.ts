/**
 * Verbs through the worker, in lock-step (deterministic): a skill's targets pass the safety stage
 * (step limit, clamp, non-finite held), done / failed / stopped are told apart, one verb at a
 * time, and an async skill's promise is waited for, up to its timeout.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeVerb } from '../../src/control/skill.js';
import { holdSkill, poseSkill } from '../../src/control/skills/specs.js';
import { sleep, skill, startRig } from './rig.js';

const near = (a: number, b: number) => Math.abs(a - b) < 1e-9;

describe('verbs', () => {
  it('moves no joint further than maxVelocity × period a tick, and clamps to the limits', async (t) => {
    // Joints announce 1 rad/s (0.02 rad a tick); the ramp asks for 5 rad/s on joint 0 for 400 ms.
    const rig = await startRig(t, {}, { mode: 'lockstep' });
    const result = await rig.loop.run(skill({ kind: 'ramp', velocity: 5, durationMs: 400 }));
    assert.deepEqual(result, { outcome: 'done', ticks: 21, endTick: 21, ranMs: 400 });
    const { sends } = await rig.log();
    const j0 = sends.map((s) => s.targets[0] ?? Number.NaN);
    for (let i = 1; i < j0.length; i += 1) assert.ok(Math.abs((j0[i] ?? 0) - (j0[i - 1] ?? 0)) <= 0.02 + 1e-12, `send ${i} jumped`);
    // The hold pose, then 20 ticks of the ramp (the first asks for where it starts), then done.
    assert.equal(j0.length, 22);
    assert.ok(near(j0[20] ?? 0, 0.38) && near(j0[21] ?? 0, 0.38), `joint 0 went ${JSON.stringify(j0.slice(18))}`);

    const clamp = await startRig(t, { start: [0.95, 0, 0] }, { mode: 'lockstep' });
    await clamp.loop.run(skill({ kind: 'ramp', velocity: 1, durationMs: 200 }));
    assert.equal(Math.max(...(await clamp.log()).sends.map((s) => s.targets[0] ?? 0)), 1);
  });

  it('holds the last targets when a skill asks for NaN, and counts it', async (t) => {
    const rig = await startRig(t, {}, { mode: 'lockstep' });
    const stats: number[] = [];
    rig.events.on('control:stats', (e) => stats.push(e.stats.refusals));
    const result = await rig.loop.run(skill({ kind: 'script', targets: [[0.01, 0, 0], [null, 0, 0], [0.02, 0, 0]] }));
    assert.equal(result.outcome, 'done');
    const { sends } = await rig.log();
    assert.deepEqual(
      sends.map((s) => s.targets[0]),
      [0, 0.01, 0.01, 0.02, 0.02],
    );
    assert.equal(stats.at(-1), 1);
  });

  it('tells failures apart: a skill that throws, one that cannot be made', async (t) => {
    const rig = await startRig(t, {}, { mode: 'lockstep' });
    const thrown = await rig.loop.run(skill({ kind: 'throw' }));
    assert.equal(describeVerb(thrown), 'failed — skill: the skill broke');
    const unmade = await rig.loop.run(skill({ kind: 'nonsense' }));
    assert.equal(unmade.outcome, 'failed');
    assert.match(describeVerb(unmade), /^failed — skill: /);
  });

  it('has built-in skills: hold for a time, go to a pose (and fail when it is out of reach)', async (t) => {
    const rig = await startRig(t, { start: [0.1, 0.2, 0.3], maxVelocity: 2 }, { mode: 'lockstep' });
    assert.deepEqual(await rig.loop.run(holdSkill(100)), { outcome: 'done', ticks: 6, endTick: 6, ranMs: 100 });
    // 0.3 rad at 2 rad/s (0.04 a tick), the joints following at 5 rad/s: reached on the 9th tick.
    assert.equal((await rig.loop.run(poseSkill([0.4, 0.2, 0.3]))).outcome, 'done');
    const unreachable = await rig.loop.run(poseSkill([2, 0.2, 0.3], { timeoutMs: 400 }));
    assert.equal(describeVerb(unreachable), 'failed — skill: pose not reached within 400 ms');
    const { sends, finalPos } = await rig.log();
    assert.deepEqual(sends.slice(0, 7).map((s) => s.targets), Array.from({ length: 7 }, () => [0.1, 0.2, 0.3]));
    assert.ok(Math.abs((finalPos[0] ?? 0) - 1) < 1e-9, `clamped at the limit: ${finalPos[0]}`);
  });

  it('runs one verb at a time', async (t) => {
    const rig = await startRig(t, {}, { mode: 'realtime' });
    const first = rig.loop.run(skill({ kind: 'ramp', velocity: 0.1 }));
    await assert.rejects(rig.loop.run(skill({ kind: 'ramp' })), /already running/);
    // stop() then run() at once: the stop is the first verb's, the new verb runs on.
    rig.loop.stop();
    const second = rig.loop.run(skill({ kind: 'ramp', velocity: 0.1, durationMs: 100 }));
    assert.equal((await first).outcome, 'stopped');
    assert.equal((await second).outcome, 'done');
  });

  it('waits for an async skill, and fails one that takes longer than its timeout', async (t) => {
    const rig = await startRig(t, {}, { mode: 'lockstep', skillTimeoutMs: 200 });
    assert.deepEqual(await rig.loop.run(skill({ kind: 'async', delayMs: 1, ticks: 5 })), { outcome: 'done', ticks: 6, endTick: 6, ranMs: 100 });
    const slow = await rig.loop.run(skill({ kind: 'async', delayMs: 5000 }));
    assert.equal(describeVerb(slow), 'failed — skill gave no targets within 200 ms');
  });

  it('ends a running verb as stopped when the loop closes', async (t) => {
    const rig = await startRig(t, {}, { mode: 'realtime' });
    const running = rig.loop.run(skill({ kind: 'ramp', velocity: 0.1 }));
    await sleep(100);
    await rig.loop.close();
    assert.equal((await running).outcome, 'stopped');
    await assert.rejects(rig.loop.run(skill({ kind: 'ramp' })), /closed/);
  });

  // Its skill is still being made (a module import, slow on a loaded machine) when the close comes:
  // seen in CI as a rejection, 'the control loop stopped', where the caller is owed an ending.
  it('ends a verb whose skill is still loading as stopped when the loop closes', async (t) => {
    const rig = await startRig(t, {}, { mode: 'realtime' });
    const running = rig.loop.run(skill({ kind: 'ramp', velocity: 0.1 }));
    await rig.loop.close();
    const r = await running;
    assert.deepEqual([r.outcome, r.ticks], ['stopped', 0]);
  });
});
