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
 * grab also waits for its next frame), still once the newest look and one at least `stillMs`
 * older put it within `metres` (or `share` of its distance, for a far ball's coarser range) of
 * each other, for at most `withinMs`.
 * A look right after the kick saw a ball still rolling, through a frame up to a frame period
 * old: on the twin (a 2 fps camera) kicks measured 0.34-0.40 m where the ball came to rest
 * 0.72-0.91 m on, and a 2.14 m roll once read 0.23 m. Two looks a frame apart then still took a
 * ball creeping at ~5 cm/s for one at rest (0.45 m away, then 0.55 and 0.59 m in the looks of the
 * next turns: a kick read 0.26 m, short of the run's 0.3, and the chase that followed pushed the
 * ball ahead until the budget ran out); over a second such a creep is twice the tolerance.
 */
const KICK_WATCH = { everyMs: 250, stillMs: 1000, withinMs: 5000, metres: 0.03, share: 0.05 };

/** The ball once it lies still, or the last look within the watch; undefined once it is out of view, or the camera's one line. */
export async function restingSighting(looking: KickLooking, reckoning: BallReckoning, signal?: AbortSignal, watch = KICK_WATCH): Promise<BallSighting | undefined | string> {
  const until = Date.now() + watch.withinMs;
  const first = await looking.sighting();
  if (typeof first !== 'object') return first;
  const looks: { readonly at: number; readonly seen: BallSighting }[] = [{ at: Date.now(), seen: first }];
  while (Date.now() < until) {
    // A stop ends the watch at once: the ball is measured where it was last seen.
    const stopped = await sleep(watch.everyMs, false, { signal }).catch(() => true);
    if (stopped) break;
    const next = await looking.sighting();
    if (typeof next !== 'object') return next;
    const at = Date.now();
    // The newest look at least stillMs before this one: the baseline a creeping ball shows on.
    const base = looks.findLast((l) => at - l.at >= watch.stillMs);
    looks.push({ at, seen: next });
    if (base === undefined) continue;
    const [a, b] = [reckoning.fromTrunk(base.seen), reckoning.fromTrunk(next)];
    if (Math.hypot(a.ahead - b.ahead, a.left - b.left) <= Math.max(watch.metres, watch.share * next.distance_m)) return next;
  }
  return looks.at(-1)?.seen;
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
