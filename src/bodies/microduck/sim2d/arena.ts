/**
 * The 2D living room: pure geometry and physics for microduck:sim2d, no I/O. A 5 m × 4 m room
 * with one sofa that blocks walking and hides the ball from the camera. Deterministic: the only
 * randomness is the seeded starting layout.
 */

export interface Vec {
  readonly x: number;
  readonly y: number;
}

export interface Rect {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

export interface Pose extends Vec {
  /** Heading in radians, counter-clockwise from +x. */
  readonly heading: number;
}

export const ROOM: Rect = { x0: 0, y0: 0, x1: 5, y1: 4 };
export const SOFA: Rect = { x0: 2.9, y0: 2.7, x1: 4.3, y1: 3.5 };
export const DUCK_RADIUS = 0.1;
export const BALL_RADIUS = 0.06;
/** Half of the camera's horizontal field of view. */
export const CAMERA_HALF_FOV = (30 * Math.PI) / 180;
export const CAMERA_RANGE = 4.5;
/** Reach of a kick, centre to centre, and the sweet spot. */
export const KICK_MIN = 0.12;
export const KICK_MAX = 0.4;
export const KICK_SWEET = 0.25;
export const KICK_HALF_ANGLE = (25 * Math.PI) / 180;

export function wrapAngle(a: number): number {
  let r = a % (2 * Math.PI);
  if (r > Math.PI) r -= 2 * Math.PI;
  if (r <= -Math.PI) r += 2 * Math.PI;
  return r;
}

export const deg = (rad: number): number => (rad * 180) / Math.PI;
export const rad = (degrees: number): number => (degrees * Math.PI) / 180;
export const dist = (a: Vec, b: Vec): number => Math.hypot(a.x - b.x, a.y - b.y);
/** Centimetres are as fine as results and frames report. */
export const round2 = (n: number): number => Math.round(n * 100) / 100;

/** Bearing of `p` seen from `pose`, radians, positive = to the left. */
export function bearingTo(pose: Pose, p: Vec): number {
  return wrapAngle(Math.atan2(p.y - pose.y, p.x - pose.x) - pose.heading);
}

/** Whether a disc of `radius` at `p` overlaps the rect grown by nothing (closest-point test). */
export function discHitsRect(p: Vec, radius: number, r: Rect): boolean {
  const cx = Math.max(r.x0, Math.min(p.x, r.x1));
  const cy = Math.max(r.y0, Math.min(p.y, r.y1));
  return Math.hypot(p.x - cx, p.y - cy) < radius;
}

/** Whether a disc at `p` is fully inside the room. */
export function discInRoom(p: Vec, radius: number): boolean {
  return p.x - radius >= ROOM.x0 && p.x + radius <= ROOM.x1 && p.y - radius >= ROOM.y0 && p.y + radius <= ROOM.y1;
}

/**
 * Where the segment a→b is inside rect r, as fractions of the way from a (Liang–Barsky
 * clipping), or undefined when it misses: the room's camera needs how high a sight line is over
 * the sofa, not only whether it crosses it.
 */
export function segmentRectSpan(a: Vec, b: Vec, r: Rect): { readonly t0: number; readonly t1: number } | undefined {
  let t0 = 0;
  let t1 = 1;
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const clips: [number, number][] = [
    [-dx, a.x - r.x0],
    [dx, r.x1 - a.x],
    [-dy, a.y - r.y0],
    [dy, r.y1 - a.y],
  ];
  for (const [p, q] of clips) {
    if (p === 0) {
      if (q < 0) return undefined;
    } else {
      const t = q / p;
      if (p < 0) t0 = Math.max(t0, t);
      else t1 = Math.min(t1, t);
      if (t0 > t1) return undefined;
    }
  }
  return { t0, t1 };
}

/** Whether the segment a→b crosses rect r. */
export function segmentHitsRect(a: Vec, b: Vec, r: Rect): boolean {
  return segmentRectSpan(a, b, r) !== undefined;
}

/** What stops a move: a wall, the sofa, or a named disc on the floor (the ball, a chair …). */
export type Blocker = 'wall' | 'sofa' | (string & {});

/** A disc on the floor that a move stops at. */
export interface Obstacle {
  readonly name: string;
  readonly at: Vec;
  readonly radius: number;
}

/**
 * Move a disc from `from` along `heading` by up to `distance` metres (negative = backwards),
 * stopping at the first wall, the sofa or obstacle disc. Marches in 1 cm steps: plenty for a
 * living room and simple to trust.
 */
export function sweepDisc(
  from: Vec,
  heading: number,
  distance: number,
  radius: number,
  obstacles: readonly Obstacle[] = [],
): { readonly to: Vec; readonly travelled: number; readonly blockedBy?: Blocker } {
  const step = 0.01;
  const sign = Math.sign(distance);
  const total = Math.abs(distance);
  let at = from;
  let travelled = 0;
  while (travelled < total - 1e-9) {
    const d = Math.min(step, total - travelled);
    const next = { x: at.x + sign * d * Math.cos(heading), y: at.y + sign * d * Math.sin(heading) };
    let blockedBy: Blocker | undefined;
    if (!discInRoom(next, radius)) blockedBy = 'wall';
    else if (discHitsRect(next, radius, SOFA)) blockedBy = 'sofa';
    else blockedBy = obstacles.find((o) => dist(next, o.at) < radius + o.radius)?.name;
    if (blockedBy !== undefined) return { to: at, travelled, blockedBy };
    at = next;
    travelled += d;
  }
  return { to: at, travelled };
}

/** What the camera sees of the ball from `pose`: bearing and distance, or nothing. */
export function cameraSeesBall(pose: Pose, ball: Vec): { readonly bearing: number; readonly distance: number } | undefined {
  const bearing = bearingTo(pose, ball);
  const distance = dist(pose, ball);
  if (Math.abs(bearing) > CAMERA_HALF_FOV || distance > CAMERA_RANGE) return undefined;
  if (segmentHitsRect(pose, ball, SOFA)) return undefined;
  return { bearing, distance };
}

/**
 * How far a kick sends the ball: nothing outside reach or off to the side; most from the sweet
 * spot; half as far with the foot on the wrong side of the ball.
 */
export function kickDistance(pose: Pose, ball: Vec, foot: 'left' | 'right'): number {
  const d = dist(pose, ball);
  const bearing = bearingTo(pose, ball);
  if (d < KICK_MIN || d > KICK_MAX || Math.abs(bearing) > KICK_HALF_ANGLE) return 0;
  const falloff = Math.max(0, 1 - Math.abs(d - KICK_SWEET) / (KICK_MAX - KICK_MIN));
  const wrongFoot = (foot === 'left' && bearing < -0.05) || (foot === 'right' && bearing > 0.05);
  return 0.15 + 0.55 * falloff * (wrongFoot ? 0.5 : 1);
}


/**
 * Open floor the ball keeps on every side when a layout is made: find-and-kick asks for 0.3 m
 * of roll, and a kick sends the ball along the duck's line of approach, which the duck picks
 * without knowing the room. A ball laid nearer a wall or the sofa than this could be kicked
 * 0.3 m from one side only (or, touching, from none): a layout no duck could be sure to solve.
 */
export const BALL_ROOM = 0.4;

/** A free spot for a disc: inside the room with a margin, `sofaMargin` clear of the sofa. */
export function freeSpot(random: () => number, radius: number, margin = 0.3, sofaMargin = 0.1): Vec {
  for (;;) {
    const p = {
      x: ROOM.x0 + margin + random() * (ROOM.x1 - ROOM.x0 - 2 * margin),
      y: ROOM.y0 + margin + random() * (ROOM.y1 - ROOM.y0 - 2 * margin),
    };
    if (!discHitsRect(p, radius + sofaMargin, SOFA)) return p;
  }
}
