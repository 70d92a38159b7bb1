/**
 * The ball found by its colour, no model weights: the pixels in its colour range, the
 * connected regions of them, the largest that is round enough, and from it the ball's bearing
 * (its centre's column through the lens) and distance (its apparent size against its known
 * diameter, and the lens's height). A ball cut by the frame's edge or half behind the sofa keeps
 * its uncut extent, so its size and centre come from that side. Pure: a frame in, a sighting out.
 */
import type { CameraFrame } from '../camera/camera.js';
import { colourMask, findBlobs, type Blob, type ColourRange } from './blobs.js';
import { angleBetween, pixelRay, type Lens } from './lens.js';

/** An orange ball (the usual toy): hue 5–40°, saturated, not in shadow. */
export const ORANGE: ColourRange = { hue_min: 5, hue_max: 40, sat_min: 0.45, val_min: 0.2 };

export interface BallLook {
  readonly lens: Lens;
  readonly colour: ColourRange;
  readonly diameter_m: number;
  /** Fewer pixels than this is noise, not a ball. */
  readonly min_pixels?: number;
}

export interface BallSighting {
  /** From the robot's front, left positive. */
  readonly bearing_deg: number;
  /** From the robot's centre to the ball's, on the floor. */
  readonly distance_m: number;
  readonly pixels: number;
  /** Area over bounding box: a disc fills π/4 (0.785) of it, a cut disc about as much, a block all. */
  readonly fill: number;
  readonly centre: { readonly col: number; readonly row: number };
  readonly diameter_px: number;
}

/** Which of a blob's sides lie on the frame's edge (what is beyond is unseen). */
function cuts(blob: Blob, width: number, height: number): { readonly left: boolean; readonly right: boolean; readonly top: boolean; readonly bottom: boolean } {
  return { left: blob.minCol === 0, right: blob.maxCol === width - 1, top: blob.minRow === 0, bottom: blob.maxRow === height - 1 };
}

/** Round enough to be a ball: fills its box as a disc does and, unless the edge cut it, about as wide as tall. */
export function roundEnough(blob: Blob, width: number, height: number): boolean {
  const w = blob.maxCol - blob.minCol + 1;
  const h = blob.maxRow - blob.minRow + 1;
  const fill = blob.area / (w * h);
  const c = cuts(blob, width, height);
  const cut = c.left || c.right || c.top || c.bottom;
  const aspect = Math.max(w, h) / Math.min(w, h);
  // A narrow strip of a ball at the edge is nearly a rectangle: only a whole one must leave its corners empty.
  return fill >= 0.6 && fill <= (cut ? 1 : 0.92) && aspect <= (cut ? 3 : 1.5);
}

export function detectBall(frame: CameraFrame, look: BallLook): BallSighting | undefined {
  const { width, height } = frame;
  const mask = colourMask(frame, look.colour);
  const blobs = findBlobs(mask, width, look.min_pixels ?? 12).filter((b) => roundEnough(b, width, height));
  const blob = blobs.reduce<Blob | undefined>((best, b) => (best === undefined || b.area > best.area ? b : best), undefined);
  return blob === undefined ? undefined : measure(blob, look, width, height);
}

/** Bearing and distance of the ball a blob shows. */
export function measure(blob: Blob, look: BallLook, width: number, height: number): BallSighting {
  const { lens } = look;
  const w = blob.maxCol + 1 - blob.minCol;
  const h = blob.maxRow + 1 - blob.minRow;
  const c = cuts(blob, width, height);
  // The uncut extent is the ball's diameter; a side on the edge (or hidden) is found from the other.
  const diameter = Math.max(w, h);
  const col = c.left && !c.right ? blob.maxCol + 1 - diameter / 2 : c.right && !c.left ? blob.minCol + diameter / 2 : (blob.minCol + blob.maxCol + 1) / 2;
  const row = c.top && !c.bottom ? blob.maxRow + 1 - diameter / 2 : c.bottom && !c.top ? blob.minRow + diameter / 2 : (blob.minRow + blob.maxRow + 1) / 2;
  const fill = blob.area / (w * h);
  // Whole: uncut, and as wide as tall or wider (off to the side, a lens stretches a ball across, to 1.16 at 30°).
  // Taller than wide with no edge to blame, something hides a side of it (the sofa).
  const whole = !(c.left || c.right || c.top || c.bottom) && h <= w + 1 && w <= 1.25 * h + 1;
  // Whole, the area measures the width better than the box's whole pixels do (an ellipse's area is π/4·w·h).
  const across = whole ? Math.sqrt(((4 * blob.area) / Math.PI) * (w / h)) : w;
  const alphaAcross = angleBetween(pixelRay(lens, col - across / 2, row), pixelRay(lens, col + across / 2, row));
  const alphaDown = angleBetween(pixelRay(lens, col, blob.minRow), pixelRay(lens, col, blob.maxRow + 1));
  const alpha = whole ? alphaAcross : Math.max(alphaAcross, alphaDown);
  const radius = look.diameter_m / 2;
  const centre = pixelRay(lens, col, row);
  const norm = Math.hypot(...centre);
  // Cut by the frame's bottom (a ball near the feet of a camera pitched down), its size is lost
  // but its top edge is not: on the floor, below a lens of known height, that edge says how far.
  const floorReach = c.bottom && !c.top ? reachByTopEdge(lens, col, blob.minRow, radius) : undefined;
  const slant = radius / Math.sin(alpha / 2);
  // Along the centre ray, slant metres (or, by the top edge, so far across the floor); then into the robot's frame.
  const across2 = Math.hypot(centre[0], centre[1]);
  const [ahead, side] = floorReach === undefined ? [(centre[0] / norm) * slant, (centre[1] / norm) * slant] : [(centre[0] / across2) * floorReach, (centre[1] / across2) * floorReach];
  const forward = ahead + lens.mount.ahead_m;
  const left = side;
  return {
    bearing_deg: (Math.atan2(left, forward) * 180) / Math.PI,
    distance_m: Math.hypot(forward, left),
    pixels: blob.area,
    fill,
    centre: { col, row },
    diameter_px: diameter,
  };
}

/**
 * How far across the floor (from below the lens) a ball lies whose top edge is seen at this
 * pixel: the distance at which a sphere of `radius` on the floor, seen from `height_m` up, has
 * its top edge that far below level (it rises as the ball comes nearer: found by halving).
 * Undefined when the lens is not above the ball's centre or the edge is not below level.
 */
export function reachByTopEdge(lens: Lens, col: number, row: number, radius: number): number | undefined {
  const drop = lens.mount.height_m - radius;
  const [fwd, left, up] = pixelRay(lens, col, row);
  const below = Math.atan2(-up, Math.hypot(fwd, left));
  if (drop <= radius || below <= 0) return undefined;
  const topEdge = (d: number): number => Math.atan2(drop, d) - Math.asin(Math.min(1, radius / Math.hypot(d, drop)));
  let [near, far] = [0, 20];
  if (topEdge(far) > below) return undefined;
  for (let i = 0; i < 40; i++) {
    const mid = (near + far) / 2;
    if (topEdge(mid) > below) near = mid;
    else far = mid;
  }
  return (near + far) / 2;
}

/** What the detector found, in words a pilot reads: `ball at bearing 5° left, 3.27 m (332 px)`. */
export function describeSighting(seen: BallSighting | undefined): string {
  return seen === undefined ? 'no ball in view' : `ball at ${describePlace(seen)} (${seen.pixels} px)`;
}

/** Where a sighting puts the ball: `bearing 5° left, 3.27 m`. */
export function describePlace(seen: BallSighting): string {
  const d = Math.round(seen.bearing_deg);
  const bearing = d === 0 ? 'straight ahead' : `${Math.abs(d)}° ${d > 0 ? 'left' : 'right'}`;
  return `bearing ${bearing}, ${seen.distance_m.toFixed(2)} m`;
}
