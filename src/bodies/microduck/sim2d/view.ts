/**
 * What the duck's camera sees in the sim2d room, drawn as an RGB frame: floor, walls and ceiling,
 * the sofa as a box (tall enough to hide the ball behind it), the orange ball as a shaded sphere,
 * and whatever else stands on the floor (the lookout room's lamp, plant, chair, box) as upright
 * cylinders of their own colours. A lens above the sofa's back sees its seat from above.
 * A pinhole ray cast, one ray a pixel, level or pitched down as the lens's mount is; pure, no I/O. It is what the
 * synthetic camera gives the colour detector, so the detector runs on sim2d's room in CI.
 */
import type { Lens } from '../../../vision/lens.js';
import { focalPx } from '../../../vision/lens.js';
import { BALL_RADIUS, CAMERA_HALF_FOV, ROOM, SOFA, segmentRectSpan, type Pose, type Vec } from './arena.js';

/** The duck's camera: sim2d's field of view, 0.1 m up, level, at the duck's centre (where the room's bearings are measured from). */
export const SIM2D_LENS: Lens = { width: 640, height: 480, fov_deg: (2 * CAMERA_HALF_FOV * 180) / Math.PI, mount: { height_m: 0.1, pitch_deg: 0, ahead_m: 0 } };

const WALL_HEIGHT = 2.4;
/** The sofa's back: taller than the camera, so it hides what is behind it, as sim2d's camera says. */
const SOFA_HEIGHT = 0.8;

export type Rgb = readonly [number, number, number];

/** Something standing on the floor, drawn as an upright cylinder. */
export interface Standing {
  readonly at: Vec;
  readonly radius: number;
  readonly height: number;
  readonly colour: Rgb;
}

/** Where a horizontal ray (cos, sin per metre) from `from` first meets `thing`'s footprint, metres; Infinity if never. */
function footprintIn(from: Vec, cos: number, sin: number, thing: Standing): number {
  const along = (thing.at.x - from.x) * cos + (thing.at.y - from.y) * sin;
  const off2 = (thing.at.x - from.x) ** 2 + (thing.at.y - from.y) ** 2 - along * along;
  const r2 = thing.radius * thing.radius;
  if (along <= 0 || off2 >= r2) return Infinity;
  return along - Math.sqrt(r2 - off2);
}
const FLOOR: Rgb = [150, 140, 125];
const WALL: Rgb = [222, 218, 204];
const CEILING: Rgb = [240, 240, 238];
const SOFA_CLOTH: Rgb = [58, 78, 140];
const BALL: Rgb = [255, 112, 24];

/** How far along a horizontal ray from `from` at `angle` the room's walls are. */
function wallDistance(from: Vec, cos: number, sin: number): number {
  const tx = cos > 1e-12 ? (ROOM.x1 - from.x) / cos : cos < -1e-12 ? (ROOM.x0 - from.x) / cos : Infinity;
  const ty = sin > 1e-12 ? (ROOM.y1 - from.y) / sin : sin < -1e-12 ? (ROOM.y0 - from.y) / sin : Infinity;
  return Math.min(tx, ty);
}

/**
 * The frame from `pose` (where the lens is on the floor plan and which way it faces), the lens
 * `eye` metres up (its mount's height unless the simulator knows better) and pitched down by its
 * mount's pitch.
 */
export function renderView(pose: Pose, ball: Vec, lens: Lens = SIM2D_LENS, eye: number = lens.mount.height_m, standing: readonly Standing[] = []): { readonly width: number; readonly height: number; readonly rgb: Uint8Array } {
  const { width, height } = lens;
  const rgb = new Uint8Array(width * height * 3);
  const put = (o: number, c: Rgb, shade: number): void => {
    rgb[o] = c[0] * shade;
    rgb[o + 1] = c[1] * shade;
    rgb[o + 2] = c[2] * shade;
  };
  const level = lens.mount.pitch_deg === 0;
  let cos = 0;
  let sin = 0;
  let far = 0;
  let sofaIn = Infinity;
  let sofaOut = Infinity;
  let ballColumn = false;
  const things = standing.map(() => Infinity);
  // Level, a column is one vertical plane: its walls, sofa and ball found once; pitched, each pixel's own.
  const [ch, sh] = [Math.cos(pose.heading), Math.sin(pose.heading)];
  const aim = (fwd: number, left: number): void => {
    const n = Math.hypot(fwd, left);
    cos = (fwd * ch - left * sh) / n;
    sin = (fwd * sh + left * ch) / n;
    far = wallDistance(pose, cos, sin);
    const span = segmentRectSpan(pose, { x: pose.x + cos * far, y: pose.y + sin * far }, SOFA);
    sofaIn = span === undefined ? Infinity : span.t0 * far;
    sofaOut = span === undefined ? Infinity : span.t1 * far;
    for (let i = 0; i < standing.length; i++) things[i] = footprintIn(pose, cos, sin, standing[i]!);
    // Does this ray pass over the ball at all (closest approach on the floor plan within its radius)?
    const along = (ball.x - pose.x) * cos + (ball.y - pose.y) * sin;
    const off = Math.abs(-(ball.x - pose.x) * sin + (ball.y - pose.y) * cos);
    ballColumn = along > 0 && off < BALL_RADIUS;
  };
  // lens.ts's pixelRay, unrolled: a frame is 300 000 rays.
  const f = focalPx(lens);
  const [cp, sp] = [Math.cos((lens.mount.pitch_deg * Math.PI) / 180), Math.sin((lens.mount.pitch_deg * Math.PI) / 180)];
  for (let col = 0; col < width; col++) {
    const left = -(col + 0.5 - width / 2) / f;
    if (level) aim(1, left);
    for (let row = 0; row < height; row++) {
      const down = (row + 0.5 - height / 2) / f;
      const fwd = cp - down * sp;
      const z = -(down * cp + sp);
      if (!level) aim(fwd, left);
      // Rise per metre of floor along the ray.
      const up = z / Math.hypot(fwd, left);
      const o = (row * width + col) * 3;
      let nearest = far;
      let colour: Rgb = eye + up * far > WALL_HEIGHT ? CEILING : WALL;
      const floor = up < 0 ? eye / -up : Infinity;
      if (floor < nearest) {
        nearest = floor;
        colour = FLOOR;
      }
      // A ray meets the sofa's side where it enters the box low enough, or its top on the way down through it.
      if (sofaIn < nearest) {
        const top = up < 0 ? (SOFA_HEIGHT - eye) / up : Infinity;
        const hit = eye + up * sofaIn <= SOFA_HEIGHT ? sofaIn : top >= sofaIn && top <= sofaOut ? top : Infinity;
        if (hit < nearest) {
          nearest = hit;
          colour = SOFA_CLOTH;
        }
      }
      for (let i = 0; i < standing.length; i++) {
        const t = things[i]!;
        const thing = standing[i]!;
        if (t >= nearest) continue;
        const top = up < 0 ? (thing.height - eye) / up : Infinity;
        // Its side where the ray enters low enough; its lid when the ray comes down inside its footprint.
        const hit = eye + up * t <= thing.height ? t : top >= t && top <= t + 2 * thing.radius && Math.hypot(pose.x + cos * top - thing.at.x, pose.y + sin * top - thing.at.y) <= thing.radius ? top : Infinity;
        if (hit < nearest) {
          nearest = hit;
          colour = thing.colour;
        }
      }
      if (ballColumn) {
        const hit = hitBall(pose, ball, eye, cos, sin, up);
        if (hit !== undefined && hit.t < nearest) {
          put(o, BALL, hit.light);
          continue;
        }
      }
      put(o, colour, colour === FLOOR ? Math.max(0.6, 1 - nearest / 12) : 1);
    }
  }
  return { width, height, rgb };
}

/** Where the ray (dx, dy, dz per unit) from the eye meets the ball: horizontal distance and how lit (light from above, behind the camera). */
function hitBall(pose: Vec, ball: Vec, eye: number, dx: number, dy: number, dz: number): { readonly t: number; readonly light: number } | undefined {
  const ox = pose.x - ball.x;
  const oy = pose.y - ball.y;
  const oz = eye - BALL_RADIUS;
  const a = dx * dx + dy * dy + dz * dz;
  const b = 2 * (ox * dx + oy * dy + oz * dz);
  const c = ox * ox + oy * oy + oz * oz - BALL_RADIUS * BALL_RADIUS;
  const disc = b * b - 4 * a * c;
  if (disc < 0) return undefined;
  const k = (-b - Math.sqrt(disc)) / (2 * a);
  if (k <= 0) return undefined;
  const nx = (ox + k * dx) / BALL_RADIUS;
  const ny = (oy + k * dy) / BALL_RADIUS;
  const nz = (oz + k * dz) / BALL_RADIUS;
  // Light from above and from the camera's side: the near face lit, the bottom in shade.
  const toCamera = -(nx * dx + ny * dy + nz * dz) / Math.sqrt(a);
  const light = 0.45 + 0.35 * Math.max(0, nz) + 0.2 * Math.max(0, toCamera);
  return { t: k * Math.hypot(dx, dy), light: Math.min(1, light) };
}
