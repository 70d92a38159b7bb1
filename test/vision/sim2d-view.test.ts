/** The detector on sim2d's synthetic camera agrees with the simulator's own answer, in every seed. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BALL_RADIUS, bearingTo, cameraSeesBall, deg, rad, wrapAngle } from '../../src/bodies/microduck/sim2d/arena.js';
import { layoutForSeed } from '../../src/bodies/microduck/sim2d/sim2d-body.js';
import { renderView, SIM2D_LENS } from '../../src/bodies/microduck/sim2d/view.js';
import { detectBall, ORANGE } from '../../src/vision/ball.js';

const look = { lens: SIM2D_LENS, colour: ORANGE, diameter_m: 2 * BALL_RADIUS };

describe('sim2d camera frames', () => {
  it('in 50 seeds, every heading (10° apart) where the simulator sees the ball: within ±5° and ±15 %; hidden by the sofa, nothing', () => {
    let frames = 0;
    let seeds = 0;
    for (let seed = 1; seed <= 50; seed++) {
      const { duck, ball } = layoutForSeed(seed);
      let seenInSeed = 0;
      for (let step = 0; step < 36; step++) {
        const pose = { ...duck, heading: wrapAngle(duck.heading + rad(step * 10)) };
        const truth = cameraSeesBall(pose, ball);
        const hidden = truth === undefined && Math.abs(bearingTo(pose, ball)) < rad(25);
        if (truth === undefined && !hidden) continue;
        const seen = detectBall({ ...renderView(pose, ball), at: 0 }, look);
        if (truth === undefined) {
          // Well inside the view but hidden: the sofa, and the camera sees no ball either.
          assert.equal(seen, undefined, `seed ${seed}, heading +${step * 10}°: the sofa hides the ball, yet the detector found one`);
          continue;
        }
        const where = `seed ${seed}, heading +${step * 10}°: simulator ${deg(truth.bearing).toFixed(1)}°, ${truth.distance.toFixed(2)} m`;
        assert.ok(seen !== undefined, `${where}; detector found nothing`);
        assert.ok(Math.abs(seen.bearing_deg - deg(truth.bearing)) <= 5, `${where}; detector ${seen.bearing_deg.toFixed(1)}°`);
        assert.ok(Math.abs(seen.distance_m / truth.distance - 1) <= 0.15, `${where}; detector ${seen.distance_m.toFixed(2)} m`);
        seenInSeed++;
      }
      if (seenInSeed > 0) seeds++;
      frames += seenInSeed;
    }
    // Some starts have the sofa between the duck and the ball at every heading.
    assert.ok(seeds >= 45 && frames > 200, `${seeds} seeds, ${frames} frames`);
  });

  it('the sofa hides the ball from the camera as it does from the simulator', () => {
    // Straight below the sofa, looking up through it, as test/bodies/sim2d.test.ts does.
    const pose = { x: 3.6, y: 1.5, heading: rad(90) };
    const ball = { x: 3.6, y: 3.8 };
    assert.equal(cameraSeesBall(pose, ball), undefined);
    assert.equal(detectBall({ ...renderView(pose, ball), at: 0 }, look), undefined);
  });
});
