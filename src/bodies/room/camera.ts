/**
 * A camera in the lookout room: what it sees from where it stands and points, as bearings from
 * the robot's front and distances. A thing is seen when its centre is within the field of view
 * and range, some of its height is within the view's vertical span (the pitch matters: a low
 * camera pitched up misses the ball at its feet), and the sofa's back does not hide it. Pure.
 */
import { bearingTo, deg, dist, round2, segmentRectSpan, SOFA, wrapAngle, type Vec } from '../microduck/sim2d/arena.js';
import { SOFA_HEIGHT, SOFA_THING, type Thing } from './room.js';

export interface Camera {
  /** Half the horizontal field of view (rad). */
  readonly halfFov: number;
  /** Half the vertical field of view (rad). */
  readonly halfVfov: number;
  readonly range: number;
  /** The lens above the floor (m). */
  readonly height: number;
}

/** Where a camera is and where it points. */
export interface Eye {
  readonly at: Vec;
  /** Where the lens points, world frame (rad, counter-clockwise from +x). */
  readonly heading: number;
  /** Down (+) or up (-), rad. */
  readonly pitch: number;
}

/** One thing seen, as a lookout reports it. */
export interface Sighting {
  readonly thing: string;
  /** From the robot's front, degrees, + left. */
  readonly bearing_deg: number;
  readonly distance_m: number;
}

/** Whether the sofa's back is between the lens and the top of `thing`. */
function behindSofa(camera: Camera, eye: Eye, thing: Thing): boolean {
  if (thing === SOFA_THING) return false;
  const span = segmentRectSpan(eye.at, thing.at, SOFA);
  if (span === undefined) return false;
  // The sight line to the thing's top is straight, so it is lowest over the sofa at one end of the crossing.
  const heightAt = (t: number): number => camera.height + (thing.height - camera.height) * t;
  return Math.min(heightAt(span.t0), heightAt(span.t1)) < SOFA_HEIGHT;
}

/** Whether some of the thing's height is within the view's vertical span. */
function withinTilt(camera: Camera, eye: Eye, thing: Thing, distance: number): boolean {
  const low = Math.atan2(-camera.height, distance);
  const high = Math.atan2(thing.height - camera.height, distance);
  const centre = -eye.pitch;
  return low <= centre + camera.halfVfov && high >= centre - camera.halfVfov;
}

export function sees(camera: Camera, eye: Eye, thing: Thing): boolean {
  const distance = dist(eye.at, thing.at);
  if (distance > camera.range) return false;
  if (Math.abs(bearingTo({ ...eye.at, heading: eye.heading }, thing.at)) > camera.halfFov) return false;
  return withinTilt(camera, eye, thing, distance) && !behindSofa(camera, eye, thing);
}

/** What the camera sees now, each thing's bearing taken from `front` (the robot's front, world rad). */
export function look(camera: Camera, eye: Eye, front: number, things: readonly Thing[]): Sighting[] {
  return things.filter((t) => sees(camera, eye, t)).map((t) => sightingOf(t, eye.at, front));
}

/** Where `thing` really is, seen from `from` with its front at `front`. */
export function sightingOf(thing: Thing, from: Vec, front: number): Sighting {
  const bearing = wrapAngle(Math.atan2(thing.at.y - from.y, thing.at.x - from.x) - front);
  return { thing: thing.name, bearing_deg: Math.round(deg(bearing)), distance_m: round2(dist(from, thing.at)) };
}
