/**
 * A verb's own stop (ControlLoop.run's `halt`): a body opens it before the verb's first await
 * (torque on, a reading), so a stop that comes before the loop has even been asked to run the
 * verb ends it, and one that comes while its skill warms up ends it on the next tick. A bare
 * stop() before run() stays the verb before's (verbs.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sleep, skill, startRig } from './rig.js';

// Without the halt the stopped ramps would run on for ever: a bound makes that a failure.
describe('a verb stopped through its halt signal', { timeout: 20_000 }, () => {
  it('aborted before run(): stopped without a tick, nothing sent, and the next verb runs', async (t) => {
    const rig = await startRig(t, {}, { mode: 'realtime' });
    await sleep(60);
    const halt = new AbortController();
    halt.abort();
    const r = await rig.loop.run(skill({ kind: 'ramp', velocity: 1 }), halt.signal);
    assert.equal(r.outcome, 'stopped');
    assert.equal(r.ticks, 0);
    assert.equal((await rig.loop.run(skill({ kind: 'ramp', velocity: 0.1, durationMs: 60 }))).outcome, 'done', 'the stop was taken for the next verb');
    const { sends } = await rig.log();
    assert.ok(sends.every((s) => (s.targets[0] ?? 0) <= 0.1 * 0.08 + 1e-9), 'the stopped ramp moved a joint');
  });

  it('aborted while the skill warms up (a slow start): ends on the next tick, its targets never sent', async (t) => {
    const rig = await startRig(t, {}, { mode: 'realtime' });
    const halt = new AbortController();
    const running = rig.loop.run(skill({ kind: 'ramp', velocity: 5, startMs: 400 }), halt.signal);
    await sleep(100);
    const at = performance.now();
    halt.abort();
    const r = await running;
    assert.equal(r.outcome, 'stopped');
    assert.ok(performance.now() - at < 200, `ended ${(performance.now() - at).toFixed(0)} ms after the stop`);
    await sleep(500); // past the slow start: its first targets must not come late
    const { sends } = await rig.log();
    assert.ok(sends.every((s) => (s.targets[0] ?? 0) === 0), `the stopped ramp moved a joint: ${JSON.stringify(sends.map((s) => s.targets[0]))}`);
  });

  it('aborted mid-verb: stopped, as stop() would', async (t) => {
    const rig = await startRig(t, {}, { mode: 'realtime' });
    const halt = new AbortController();
    const running = rig.loop.run(skill({ kind: 'ramp', velocity: 0.1 }), halt.signal);
    await sleep(100);
    halt.abort();
    const r = await running;
    assert.ok(r.outcome === 'stopped' && r.ticks > 0 && r.requestedTick !== undefined, JSON.stringify(r));
  });
});
