/**
 * I420 (planar YUV 4:2:0, BT.601 limited range, as rpicam-vid writes with `--codec yuv420`) to
 * packed RGB. Pure; the Pi camera's frames go through it in the reading process, never the loop.
 */

/** Bytes of one I420 frame: a full-size Y plane, then quarter-size U and V planes. */
export function i420Bytes(width: number, height: number): number {
  const cw = Math.ceil(width / 2);
  const ch = Math.ceil(height / 2);
  return width * height + 2 * cw * ch;
}

const clamp = (v: number): number => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));

export function i420ToRgb(yuv: Uint8Array, width: number, height: number): Uint8Array {
  const cw = Math.ceil(width / 2);
  const uBase = width * height;
  const vBase = uBase + cw * Math.ceil(height / 2);
  const rgb = new Uint8Array(width * height * 3);
  for (let row = 0; row < height; row++) {
    for (let col = 0; col < width; col++) {
      const c = (row >> 1) * cw + (col >> 1);
      const y = 1.164 * ((yuv[row * width + col] ?? 0) - 16);
      const u = (yuv[uBase + c] ?? 128) - 128;
      const v = (yuv[vBase + c] ?? 128) - 128;
      const o = (row * width + col) * 3;
      rgb[o] = clamp(y + 1.596 * v);
      rgb[o + 1] = clamp(y - 0.392 * u - 0.813 * v);
      rgb[o + 2] = clamp(y + 2.017 * u);
    }
  }
  return rgb;
}
