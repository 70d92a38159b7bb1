/**
 * A resting loop, in real time: on a plant whose servos hold by themselves (Plant.restingPeriodMs)
 * a loop holding with nothing to run ticks once a rest, and says so in its stats; a verb asked
 * for meanwhile starts at the next slot, not at the end of the rest; a tilt read while resting
 * is counted at the full rate, so a fall is seen as soon as on a loop that never rests. A plant
 * that does not say it holds by itself is ticked at the full rate always.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ControlStats } from '../../src/control/stats.js';
import { sleep, skill, startRig } from './rig.js';

const PERIOD = 20;
/** Long against a period, so a verb that waited for the rest's end could not pass for kicked. */
const REST = 500;
const epochNow = () => performance.timeOrigin + performance.now();

describe('a resting loop', () => {
  it('ticks once a rest while it holds, at the full rate while a verb runs, and rests again after', async (t) => {
    const rig = await startRig(t, { restingPeriodMs: REST });
    const stats: ControlStats[] = [];
    rig.events.on('control:stats', (e) => stats.push(e.stats));
    await sleep(1600);
    const ran = await rig.loop.run(skill({ kind: 'ramp', velocity: 0.2, durationMs: 400 }));
    assert.equal(ran.outcome, 'done');
    const after = epochNow();
    await sleep(1600);
    const { readAt } = await rig.log();
    const restingReads = readAt.filter((at) => at > after + 50);
    // ~3 rests in 1.55 s; at the full rate it would be ~77 reads.
    assert.ok(restingReads.length >= 2 && restingReads.length <= 5, `${restingReads.length} reads in the 1.55 s after the verb`);
    const gaps = restingReads.slice(1).map((at, i) => at - (restingReads[i] ?? at));
    for (const gap of gaps) assert.ok(gap > REST - PERIOD, `resting reads ${gap.toFixed(1)} ms apart`);
    // The verb's 400 ms ran at the full rate: ~20 ticks between the two rests.
    const during = readAt.filter((at) => at <= after && at > after - 400);
    assert.ok(during.length >= 15, `${during.length} reads in the verb's 400 ms`);
    const rested = stats.filter((s) => s.state === 'holding' && s.restingMs !== undefined);
    assert.ok(rested.length > 0, `no stats said it rested: ${JSON.stringify(stats.map((s) => [s.state, s.restingMs, s.hz]))}`);
    assert.ok(rested.every((s) => s.restingMs === REST));
  });

  it('starts a verb asked for while resting at the next slot', async (t) => {
    const rig = await startRig(t, { restingPeriodMs: REST });
    // Once, so the skill's module is loaded: the waits below are the loop's, not an import's.
    await rig.loop.run(skill({ kind: 'ramp', velocity: 0.2, durationMs: 40 }));
    const asked: number[] = [];
    for (const pause of [700, 830, 960]) {
      await sleep(pause);
      asked.push(epochNow());
      assert.equal((await rig.loop.run(skill({ kind: 'ramp', velocity: 0.2, durationMs: 40 }))).outcome, 'done');
    }
    const { readAt } = await rig.log();
    for (const at of asked) {
      const first = readAt.find((r) => r > at);
      assert.ok(first !== undefined && first - at < 100, `the verb's first tick came ${first === undefined ? 'never' : `${(first - at).toFixed(1)} ms`} after it was asked for (a rest is ${REST} ms)`);
    }
  });

  it('sees a fall that begins while resting, and the righting after it, within three ticks at the full rate', async (t) => {
    // Read 0 takes the hold pose; from read 3 on (1.5 s into resting) the trunk lies at 1 rad,
    // the fall is read 5; down, the loop rests again (read 6), and from read 7 it stands.
    const rig = await startRig(t, { restingPeriodMs: REST, tilt: [{ from: 3, rad: 1 }, { from: 7, rad: 0 }] });
    const falls: number[] = [];
    rig.events.on('control:fell', (e) => falls.push(e.tick));
    const states: string[] = [];
    rig.events.on('control:stats', (e) => states.push(e.stats.state));
    await sleep(5 * REST + 1200);
    const { readAt } = await rig.log();
    const gap = (a: number, b: number) => (readAt[b] ?? Number.NaN) - (readAt[a] ?? Number.NaN);
    assert.deepEqual(falls, [5], 'the fall is the third tilted tick');
    assert.ok(gap(2, 3) > REST - PERIOD, 'the tilt came in a rest');
    assert.ok(gap(3, 5) < 3 * PERIOD + 20, `the fall was seen ${gap(3, 5).toFixed(1)} ms after the first tilted reading`);
    assert.ok(gap(5, 6) > REST - PERIOD && gap(6, 7) > REST - PERIOD, `down, it rests: ${gap(5, 6).toFixed(1)} and ${gap(6, 7).toFixed(1)} ms between reads`);
    assert.ok(gap(7, 9) < 3 * PERIOD + 20, `the righting was counted ${gap(7, 9).toFixed(1)} ms after the first upright reading`);
    assert.ok(states.includes('fallen') && states.at(-1) === 'closed' && states.at(-2) === 'holding', `states: ${states.join(' ')}`);
  });

  it('never rests a plant that does not hold by itself', async (t) => {
    const rig = await startRig(t);
    await sleep(1000);
    const { readAt } = await rig.log();
    assert.ok(readAt.length >= 40, `${readAt.length} reads in 1 s`);
  });
});
