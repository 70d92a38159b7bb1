/**
 * What Reachy Mini's head camera shows as the head points now: the colour detector's ball, its
 * bearing turned from the lens's to the robot's front (the head's yaw is the base's, as the
 * daemon reports it) and its lens pitched with the head, so a sweep's glances can be merged as the
 * lookout room's are. Only the ball: quackd's detector knows no other thing.
 */
import type { BodyEyes } from '../../body.js';
import type { Sighting } from '../../room/camera.js';
import { detectBall } from '../../../vision/ball.js';
import type { HeadPose } from '../mock/limits.js';

/** A sighting and how far off the middle of the view it was (the best of a sweep is kept). */
export interface Glance {
  readonly sighting: Sighting;
  readonly offCentre: number;
}

const round2 = (n: number): number => Math.round(n * 100) / 100;

export async function headGlance(eyes: BodyEyes, head: HeadPose, signal?: AbortSignal): Promise<Glance[]> {
  const { lens } = eyes.ball;
  const look = { ...eyes.ball, lens: { ...lens, mount: { ...lens.mount, pitch_deg: lens.mount.pitch_deg + head.pitch } } };
  const seen = detectBall(await eyes.camera.grab(signal), look);
  if (seen === undefined) return [];
  return [{ sighting: { thing: 'ball', bearing_deg: Math.round(head.yaw + seen.bearing_deg), distance_m: round2(seen.distance_m) }, offCentre: Math.abs(seen.bearing_deg) }];
}
