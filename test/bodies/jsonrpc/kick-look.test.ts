/**
 * How far a kick moved the ball is measured once the camera sees it lie still
 * (src/bodies/microduck/jsonrpc/kick-look.ts). A ball creeping on at a few cm/s after the kick
 * moves less between two looks a frame apart than a look's own error, and was once taken for one
 * at rest 0.1-0.15 m short of where it stopped: the kick read 0.26 m and the run, needing 0.3,
 * chased the ball until its budget ran out. Here a scripted camera shows such a creep.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BallReckoning } from '../../../src/bodies/microduck/ball-reckoning.js';
import { restingSighting, type KickLooking } from '../../../src/bodies/microduck/jsonrpc/kick-look.js';
import type { BallSighting } from '../../../src/vision/ball.js';

/** A camera that sees the ball straight ahead at `distance(ms since the first look)`. */
function camera(distance: (ms: number) => number): KickLooking {
  let t0: number | undefined;
  return {
    sighting: () => {
      t0 ??= Date.now();
      const d = distance(Date.now() - t0);
      const seen: BallSighting = { bearing_deg: 0, distance_m: d, pixels: 1000, fill: 0.78, centre: { col: 160, row: 200 }, diameter_px: 36 };
      return Promise.resolve(seen);
    },
    scan: () => Promise.reject(new Error('no scan in this test')),
    yaw: () => Promise.resolve(0),
  };
}

/** 0.45 m away and creeping on at 5 cm/s for 1.5 s, then at rest 0.525 m away. */
const creeping = (ms: number): number => 0.45 + 0.05 * Math.min(ms, 1500) / 1000;

const watch = { everyMs: 100, stillMs: 1000, withinMs: 5000, metres: 0.03, share: 0.05 };

describe('the kicked ball watched until it lies still', () => {
  it('a ball creeping at 5 cm/s is not taken for one at rest: it is measured where it stops', async () => {
    const seen = await restingSighting(camera(creeping), new BallReckoning(), undefined, watch);
    assert.ok(typeof seen === 'object', 'the ball was seen');
    assert.ok(Math.abs(seen.distance_m - 0.525) < 0.005, `measured ${seen.distance_m.toFixed(3)} m away; it came to rest 0.525 m away`);
  });

  it('two looks a frame apart alone (no baseline) take the creep for rest: what the baseline is for', async () => {
    const seen = await restingSighting(camera(creeping), new BallReckoning(), undefined, { ...watch, stillMs: 0 });
    assert.ok(typeof seen === 'object' && seen.distance_m < 0.47, 'without a baseline the creeping ball reads as still at once');
  });

  it('a ball at rest is confirmed after the baseline, and a stop ends the watch at once with the last look', async () => {
    const at = Date.now();
    const still = await restingSighting(camera(() => 0.6), new BallReckoning(), undefined, watch);
    assert.ok(typeof still === 'object' && still.distance_m === 0.6);
    const took = Date.now() - at;
    assert.ok(took >= 1000 && took < 2500, `confirmed after ${took} ms`);
    const halt = new AbortController();
    setTimeout(() => halt.abort(), 250);
    const stopped = await restingSighting(camera(creeping), new BallReckoning(), halt.signal, watch);
    assert.ok(typeof stopped === 'object' && stopped.distance_m < 0.5, 'measured where it was last seen when the stop came');
  });
});
