/**
 * Where a duck whose feet feel nothing reckons the ball is, in its own frame: the camera's last
 * sighting (the detector already measures from the trunk: the lens's mount says how far ahead
 * of it the camera sits), carried through the duck's
 * own turns (the gyro's yaw) and walks (the distance reckoned from a walk's time, and the yaw
 * it veered). A head camera loses a ball before it is at the feet; this is what tells the pilot
 * a kick will reach it (`ball_in_reach`, said to be reckoned), where the twin's feet would feel
 * it. A kick forgets it: only the camera can say where the ball rolled.
 */
import type { BallSighting } from '../../vision/ball.js';
import { footFor, reachData } from './kick-reach.js';

export interface Spot {
  readonly ahead: number;
  readonly left: number;
}

const round2 = (n: number): number => Math.round(n * 100) / 100;

export class BallReckoning {
  private ball: Spot | undefined;

  /** Where a sighting puts the ball from the trunk. */
  fromTrunk(seen: Pick<BallSighting, 'bearing_deg' | 'distance_m'>): Spot {
    const b = (seen.bearing_deg * Math.PI) / 180;
    return { ahead: seen.distance_m * Math.cos(b), left: seen.distance_m * Math.sin(b) };
  }

  /** A fresh sighting: the ball is where the camera puts it. Returns it from the trunk. */
  saw(seen: Pick<BallSighting, 'bearing_deg' | 'distance_m'>): Spot {
    this.ball = this.fromTrunk(seen);
    return this.ball;
  }

  /** Where the ball is reckoned now, from the trunk, if anywhere. */
  reckoned(): Spot | undefined {
    return this.ball;
  }

  /** The duck turned `rad` to the left about its trunk: the ball swings the other way. */
  turned(rad: number): void {
    if (this.ball === undefined || !Number.isFinite(rad)) return;
    const [c, s] = [Math.cos(rad), Math.sin(rad)];
    const { ahead, left } = this.ball;
    this.ball = { ahead: ahead * c + left * s, left: -ahead * s + left * c };
  }

  /** The duck walked `metres` ahead (reckoned) while veering `veerRad`: on average half way between. */
  walked(metres: number, veerRad: number): void {
    if (this.ball === undefined) return;
    const half = veerRad / 2;
    this.ball = { ahead: this.ball.ahead - metres * Math.cos(half), left: this.ball.left - metres * Math.sin(half) };
    this.turned(veerRad);
  }

  forget(): void {
    this.ball = undefined;
  }

  /** The pilot's fields: where a sighting now puts the ball from the trunk, the kicks' reach, and the foot the reckoning says reaches it. */
  data(seenNow: Spot | undefined): Record<string, unknown> {
    const foot = this.ball === undefined ? undefined : footFor(this.ball.ahead, this.ball.left);
    const seen = seenNow === undefined ? {} : { ball_ahead_m: round2(seenNow.ahead), ball_left_m: round2(seenNow.left) };
    return { ...seen, ...reachData(foot), ...(this.ball !== undefined ? { ball_in_reach_by: 'reckoning' } : {}) };
  }
}
