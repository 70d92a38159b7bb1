/**
 * The detector on a camera pitched down (the twin's head camera: 0.25 m up, 30° down, 90° wide)
 * agrees with where the ball is, near the feet as far off: within ±5° and ±15 % of the distance,
 * in every seed of 50, on frames sim2d's renderer draws through that lens.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BALL_RADIUS, SOFA, bearingTo, deg, dist, segmentHitsRect, wrapAngle } from '../../src/bodies/microduck/sim2d/arena.js';
import { renderView } from '../../src/bodies/microduck/sim2d/view.js';
import { TWIN_BALL_LOOK, TWIN_LENS, lookFrom } from '../../src/bodies/microduck/mujoco/twin-camera.js';
import { seededRandom } from '../../src/random.js';
import { detectBall, reachByTopEdge } from '../../src/vision/ball.js';

/** A pose in the room and a ball `near`–`far` metres off within `spread` of its heading, free of the sofa's shadow. */
function scene(seed: number, near: number, far: number, spread: number): { pose: { x: number; y: number; heading: number }; ball: { x: number; y: number } } {
  const random = seededRandom(seed);
  for (;;) {
    const pose = { x: 0.4 + random() * 4.2, y: 0.4 + random() * 3.2, heading: wrapAngle(random() * 2 * Math.PI) };
    const [d, b] = [near + random() * (far - near), (random() * 2 - 1) * spread];
    const ball = { x: pose.x + d * Math.cos(pose.heading + b), y: pose.y + d * Math.sin(pose.heading + b) };
    const inRoom = ball.x > 0.1 && ball.x < 4.9 && ball.y > 0.1 && ball.y < 3.9;
    if (inRoom && !segmentHitsRect(pose, ball, SOFA) && !segmentHitsRect(pose, pose, SOFA)) return { pose, ball };
  }
}

describe('a pitched camera', () => {
  it('in 50 seeds, a ball 0.06–3 m off (near the feet up to 30° aside, farther up to 40°): within ±5° and ±15 %', () => {
    for (let seed = 1; seed <= 50; seed++) {
      // Half the seeds near the feet (where a kick is lined up, the ball cut by the frame's bottom), half across the room.
      const { pose, ball } = seed % 2 === 0 ? scene(seed, 0.06, 0.4, (30 * Math.PI) / 180) : scene(seed, 0.4, 3, (40 * Math.PI) / 180);
      const seen = detectBall({ ...renderView(pose, ball, TWIN_LENS), at: 0 }, TWIN_BALL_LOOK);
      const [bearing, distance] = [deg(bearingTo(pose, ball)), dist(pose, ball)];
      const where = `seed ${seed}: ball at ${bearing.toFixed(1)}°, ${distance.toFixed(2)} m`;
      assert.ok(seen !== undefined, `${where}; detector found nothing`);
      assert.ok(Math.abs(seen.bearing_deg - bearing) <= 5, `${where}; detector ${seen.bearing_deg.toFixed(1)}°`);
      assert.ok(Math.abs(seen.distance_m / distance - 1) <= 0.15, `${where}; detector ${seen.distance_m.toFixed(2)} m`);
    }
  });

  it('a ball cut by the bottom of the frame is measured by its top edge, not its cut size', () => {
    const pose = { x: 2, y: 2, heading: 0 };
    const ball = { x: 2.06, y: 2 };
    const frame = renderView(pose, ball, TWIN_LENS);
    // The bottom row is orange: the frame cuts the ball.
    assert.ok(frame.rgb[(TWIN_LENS.height - 1) * TWIN_LENS.width * 3 + (TWIN_LENS.width / 2) * 3]! > 200);
    const seen = detectBall({ ...frame, at: 0 }, TWIN_BALL_LOOK);
    assert.ok(seen !== undefined && Math.abs(seen.distance_m - 0.06) < 0.009, `${seen?.distance_m}`);
    // A level lens below the ball's top has no top edge to go by.
    assert.equal(reachByTopEdge({ ...TWIN_LENS, mount: { height_m: 0.1, pitch_deg: 0, ahead_m: 0 } }, 320, 300, BALL_RADIUS), undefined);
  });

  it('with the head swayed (tipped 8° further down, 2 cm lower), read where the head is: a ball at the feet within 1 cm, where the nominal mount puts it 1.5 cm or more too far', () => {
    const pose = { x: 2, y: 2, heading: 0 };
    const cam = { x: pose.x, y: pose.y, z: TWIN_LENS.mount.height_m - 0.02, heading: 0, pitch: (8 * Math.PI) / 180 };
    const swayed = { ...TWIN_LENS, mount: { ...TWIN_LENS.mount, pitch_deg: TWIN_LENS.mount.pitch_deg + 8 } };
    for (const [ahead, left] of [[0.12, 0], [0.15, 0.1], [0.2, -0.15]] as const) {
      const ball = { x: pose.x + ahead, y: pose.y + left };
      const frame = { ...renderView(pose, ball, swayed, cam.z), at: 0 };
      const truth = dist(pose, ball);
      const posed = detectBall(frame, lookFrom(TWIN_BALL_LOOK, cam));
      const nominal = detectBall(frame, TWIN_BALL_LOOK);
      assert.ok(posed !== undefined && Math.abs(posed.distance_m - truth) <= 0.01, `${ahead},${left}: ${posed?.distance_m} vs ${truth}`);
      assert.ok(nominal !== undefined && nominal.distance_m - truth >= 0.015, `${ahead},${left}: nominal ${nominal?.distance_m} vs ${truth}`);
    }
  });
});
