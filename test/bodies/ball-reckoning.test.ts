/**
 * A duck whose feet feel nothing reckons the ball from its last sighting through its own turns
 * and walks (src/bodies/microduck/ball-reckoning.ts): what tells the pilot a kick will reach a
 * ball its head camera has lost at the feet.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BallReckoning } from '../../src/bodies/microduck/ball-reckoning.js';

const close = (a: number | undefined, b: number, what: string): void => assert.ok(a !== undefined && Math.abs(a - b) < 1e-9, `${what}: ${a} ≠ ${b}`);

describe('the ball reckoned from the last sighting', () => {
  it('a sighting puts the ball ahead and to the side of the trunk, as the detector measured it', () => {
    const r = new BallReckoning();
    const spot = r.saw({ bearing_deg: 30, distance_m: 0.4 });
    close(spot.ahead, 0.4 * Math.cos(Math.PI / 6), 'ahead');
    close(spot.left, 0.2, 'left');
    assert.deepEqual(r.data(spot), { ball_ahead_m: 0.35, ball_left_m: 0.2, kick_from_m: 0.04, kick_ahead_m: 0.115, kick_side_m: 0.07, ball_in_reach: 'none', ball_in_reach_by: 'reckoning' });
  });

  it('a walk brings it nearer, and a ball walked up to beside the left foot is in reach of that foot', () => {
    const r = new BallReckoning();
    r.saw({ bearing_deg: (Math.atan2(0.07, 0.3) * 180) / Math.PI, distance_m: Math.hypot(0.3, 0.07) });
    assert.equal(r.data(undefined)['ball_in_reach'], 'none', 'too far for a kick');
    r.walked(0.19, 0);
    close(r.reckoned()?.ahead, 0.11, 'ahead after the walk');
    assert.equal(r.data(undefined)['ball_in_reach'], 'left');
    assert.equal('ball_ahead_m' in r.data(undefined), false, 'a reckoned ball is no sighting');
  });

  it('a turn swings it the other way: 90° left puts a ball ahead on the right', () => {
    const r = new BallReckoning();
    r.saw({ bearing_deg: 0, distance_m: 0.12 });
    assert.equal(r.data(undefined)['ball_in_reach'], 'left', 'straight ahead: the left foot (left ≥ 0)');
    r.turned(Math.PI / 2);
    close(r.reckoned()?.ahead, 0, 'ahead');
    close(r.reckoned()?.left, -0.12, 'left');
    assert.equal(r.data(undefined)['ball_in_reach'], 'none');
    r.turned(-Math.PI / 2 - 0.3);
    assert.equal(r.data(undefined)['ball_in_reach'], 'left', 'turned a little right of it, the ball is at the left foot');
  });

  it('a gait that veered while it walked moves the ball as half way between', () => {
    const r = new BallReckoning();
    r.saw({ bearing_deg: 0, distance_m: 1 });
    r.walked(0.5, 0.4);
    const b = r.reckoned()!;
    // Half the veer on the way, all of it by the end: back along the walked chord, then turned back by 0.4 rad.
    const [x, y] = [1 - 0.5 * Math.cos(0.2), -0.5 * Math.sin(0.2)];
    close(b.ahead, x * Math.cos(0.4) + y * Math.sin(0.4), 'ahead');
    close(b.left, -x * Math.sin(0.4) + y * Math.cos(0.4), 'left');
  });

  it('nothing seen, nothing reckoned: no foot, and forget() after a kick', () => {
    const r = new BallReckoning();
    r.walked(0.3, 0);
    r.turned(1);
    assert.equal(r.reckoned(), undefined);
    assert.deepEqual(r.data(undefined), { kick_from_m: 0.04, kick_ahead_m: 0.115, kick_side_m: 0.07, ball_in_reach: 'none' });
    r.saw({ bearing_deg: 0, distance_m: 0.12 });
    r.forget();
    assert.equal(r.data(undefined)['ball_in_reach'], 'none');
  });
});
