/**
 * Colour blobs in a frame: which pixels fall in an HSV range, then the 4-connected regions of
 * them, each with its area and bounding box. Pure; one pass for the mask, one for the regions.
 */
import type { CameraFrame } from '../camera/camera.js';

/** A colour as a range of hue (degrees; `hue_min` > `hue_max` wraps through red), and floors for saturation and value (0–1). */
export interface ColourRange {
  readonly hue_min: number;
  readonly hue_max: number;
  readonly sat_min: number;
  readonly val_min: number;
}

export interface Blob {
  readonly area: number;
  readonly minCol: number;
  readonly maxCol: number;
  readonly minRow: number;
  readonly maxRow: number;
}

/** 1 where the pixel is in the colour range. */
export function colourMask(frame: Pick<CameraFrame, 'width' | 'height' | 'rgb'>, colour: ColourRange): Uint8Array {
  const { rgb } = frame;
  const n = frame.width * frame.height;
  const mask = new Uint8Array(n);
  const valFloor = colour.val_min * 255;
  const wraps = colour.hue_min > colour.hue_max;
  for (let i = 0, o = 0; i < n; i++, o += 3) {
    const r = rgb[o]!;
    const g = rgb[o + 1]!;
    const b = rgb[o + 2]!;
    const max = r > g ? (r > b ? r : b) : g > b ? g : b;
    if (max < valFloor || max === 0) continue;
    const min = r < g ? (r < b ? r : b) : g < b ? g : b;
    const chroma = max - min;
    if (chroma < colour.sat_min * max || chroma === 0) continue;
    let hue = max === r ? (g - b) / chroma : max === g ? 2 + (b - r) / chroma : 4 + (r - g) / chroma;
    hue *= 60;
    if (hue < 0) hue += 360;
    if (wraps ? hue >= colour.hue_min || hue <= colour.hue_max : hue >= colour.hue_min && hue <= colour.hue_max) mask[i] = 1;
  }
  return mask;
}

/** The 4-connected regions of a mask of `width` columns, at least `minArea` pixels each. */
export function findBlobs(mask: Uint8Array, width: number, minArea = 1): Blob[] {
  const seen = new Uint8Array(mask.length);
  const stack = new Int32Array(mask.length);
  const blobs: Blob[] = [];
  for (let start = 0; start < mask.length; start++) {
    if (mask[start] === 0 || seen[start] === 1) continue;
    let top = 0;
    stack[top++] = start;
    seen[start] = 1;
    let area = 0;
    let minCol = width;
    let maxCol = -1;
    let minRow = Number.MAX_SAFE_INTEGER;
    let maxRow = -1;
    while (top > 0) {
      const p = stack[--top]!;
      const row = (p / width) | 0;
      const col = p - row * width;
      area++;
      if (col < minCol) minCol = col;
      if (col > maxCol) maxCol = col;
      if (row < minRow) minRow = row;
      if (row > maxRow) maxRow = row;
      const next = [col > 0 ? p - 1 : -1, col < width - 1 ? p + 1 : -1, p - width, p + width];
      for (const q of next) {
        if (q >= 0 && q < mask.length && mask[q] === 1 && seen[q] === 0) {
          seen[q] = 1;
          stack[top++] = q;
        }
      }
    }
    if (area >= minArea) blobs.push({ area, minCol, maxCol, minRow, maxRow });
  }
  return blobs;
}
