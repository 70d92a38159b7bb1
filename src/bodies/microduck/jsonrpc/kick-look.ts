/**
 * How far a kick moved the ball, by a camera duck's own eyes: where the ball was before (a
 * sighting, or the reckoned spot when it sat at the feet under the camera) against where the
 * camera finds it after it stopped rolling (in the look after the kick, else by a scan), the
 * second turned back by all the gyro says the duck turned in between.
 */
import type { BallSighting } from '../../../vision/ball.js';
import type { VerbResult } from '../../body.js';
import type { BallReckoning, Spot } from '../ball-reckoning.js';

/** What looking after a kick needs of the body: a look now, a scan, and the gyro's integrated yaw. */
export interface KickLooking {
  readonly sighting: () => Promise<BallSighting | undefined | string>;
  readonly scan: () => Promise<VerbResult>;
  readonly yaw: () => Promise<number | undefined>;
}

/**
 * Where the ball is after a kick, from the trunk as it stands now, and how far the duck turned
 * since `yawBefore`; undefined when the camera finds it nowhere, or the camera's one line.
 */
export async function ballAfterKick(looking: KickLooking, reckoning: BallReckoning, yawBefore: number | undefined): Promise<{ readonly spot: Spot; readonly turned: number; readonly scanned: boolean } | undefined | string> {
  const now = await looking.sighting();
  if (typeof now === 'string') return now;
  let seen: Pick<BallSighting, 'bearing_deg' | 'distance_m'> | undefined = now;
  if (seen === undefined) {
    const scan = await looking.scan();
    const [bearing, distance] = [scan.data?.['ball_bearing_deg'], scan.data?.['ball_distance_m']];
    if (typeof bearing !== 'number' || typeof distance !== 'number') return undefined;
    seen = { bearing_deg: bearing, distance_m: distance };
  }
  const yawNow = await looking.yaw();
  const turned = yawBefore !== undefined && yawNow !== undefined ? yawNow - yawBefore : 0;
  return { spot: reckoning.fromTrunk(seen), turned, scanned: now === undefined };
}

/** How far apart two spots of the ball (from the trunk) are, the second turned back by the duck's turn between them (radians, left +). */
export function ballMoved(before: Spot, after: Spot, turned: number): number {
  const [c, s] = [Math.cos(turned), Math.sin(turned)];
  // After the kick the trunk faces `turned` further left: its frame turned back into the one before.
  const [x, y] = [after.ahead * c - after.left * s, after.ahead * s + after.left * c];
  return Math.hypot(x - before.ahead, y - before.left);
}
