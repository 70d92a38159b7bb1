/**
 * How far a kick moved the ball, by a camera duck's own eyes: where the ball was before (a
 * sighting, or the reckoned spot when it sat at the feet under the camera) against where the
 * camera finds it after it stopped rolling (watched until two looks agree, else found by a scan),
 * the second turned back by all the gyro says the duck turned in between.
 */
import { setTimeout as sleep } from 'node:timers/promises';
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
 * How a kicked ball is watched until it lies still: a look at least every `everyMs` (a camera's
 * grab also waits for its next frame), still once two looks put it within `metres` (or `share`
 * of its distance, for a far ball's coarser range) of each other, for at most `withinMs`.
 * A look right after the kick saw a ball still rolling, through a frame up to a frame period
 * old: on the twin (a 2 fps camera) kicks measured 0.34-0.40 m where the ball came to rest
 * 0.72-0.91 m on, and a 2.14 m roll once read 0.23 m.
 */
const KICK_WATCH = { everyMs: 250, withinMs: 4000, metres: 0.03, share: 0.05 };

/** The ball once it lies still, or the last look within the watch; undefined once it is out of view, or the camera's one line. */
async function restingSighting(looking: KickLooking, reckoning: BallReckoning, signal?: AbortSignal): Promise<BallSighting | undefined | string> {
  const until = Date.now() + KICK_WATCH.withinMs;
  let last = await looking.sighting();
  while (typeof last === 'object' && Date.now() < until) {
    // A stop ends the watch at once: the ball is measured where it was last seen.
    const stopped = await sleep(KICK_WATCH.everyMs, false, { signal }).catch(() => true);
    if (stopped) return last;
    const next = await looking.sighting();
    if (typeof next !== 'object') return next;
    const [a, b] = [reckoning.fromTrunk(last), reckoning.fromTrunk(next)];
    if (Math.hypot(a.ahead - b.ahead, a.left - b.left) <= Math.max(KICK_WATCH.metres, KICK_WATCH.share * next.distance_m)) return next;
    last = next;
  }
  return last;
}

/**
 * Where the ball is after a kick, from the trunk as it stands now, and how far the duck turned
 * since `yawBefore`; undefined when the camera finds it nowhere, or the camera's one line.
 */
export async function ballAfterKick(
  looking: KickLooking,
  reckoning: BallReckoning,
  yawBefore: number | undefined,
  signal?: AbortSignal,
): Promise<{ readonly spot: Spot; readonly turned: number; readonly scanned: boolean } | undefined | string> {
  const now = await restingSighting(looking, reckoning, signal);
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
