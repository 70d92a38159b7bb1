/**
 * A camera frame made into a picture for a model: shrunk to a width (each pixel the mean of the
 * frame's pixels it covers, so a thin edge fades rather than flickers) and JPEG-encoded by
 * jpeg-js (pure JavaScript: no program to install, the same bytes on a Pi and in CI). Never
 * enlarged. Pure: a frame in, bytes out.
 */
import jpeg from 'jpeg-js';
import type { CameraFrame } from '../camera/camera.js';

/** Pictures are this wide unless `pilot.image_width` says otherwise: enough for a model to see a ball across a room, few bytes. */
export const DEFAULT_PICTURE_WIDTH = 512;
/** jpeg-js's quality (1–100): a ball's colour and edge survive it, at about a tenth of the raw bytes. */
export const PICTURE_QUALITY = 70;

export interface EncodedPicture {
  readonly jpeg: Uint8Array;
  readonly width: number;
  readonly height: number;
}

/** The frame at most `width` pixels wide, as RGBA (what the encoder reads). */
export function shrinkToRgba(frame: Pick<CameraFrame, 'width' | 'height' | 'rgb'>, width: number): { readonly width: number; readonly height: number; readonly rgba: Uint8Array } {
  const w = Math.max(1, Math.min(Math.round(width), frame.width));
  const h = Math.max(1, Math.round((frame.height * w) / frame.width));
  const sx = frame.width / w;
  const sy = frame.height / h;
  const rgba = new Uint8Array(w * h * 4);
  for (let oy = 0; oy < h; oy++) {
    const y0 = Math.floor(oy * sy);
    const y1 = Math.max(y0 + 1, Math.floor((oy + 1) * sy));
    for (let ox = 0; ox < w; ox++) {
      const x0 = Math.floor(ox * sx);
      const x1 = Math.max(x0 + 1, Math.floor((ox + 1) * sx));
      let r = 0;
      let g = 0;
      let b = 0;
      for (let y = y0; y < y1; y++) {
        for (let x = x0, i = (y * frame.width + x0) * 3; x < x1; x++, i += 3) {
          r += frame.rgb[i]!;
          g += frame.rgb[i + 1]!;
          b += frame.rgb[i + 2]!;
        }
      }
      const n = (y1 - y0) * (x1 - x0);
      const o = (oy * w + ox) * 4;
      rgba[o] = r / n;
      rgba[o + 1] = g / n;
      rgba[o + 2] = b / n;
      rgba[o + 3] = 255;
    }
  }
  return { width: w, height: h, rgba };
}

/** The frame as a JPEG at most `width` pixels wide. */
export function encodePicture(frame: Pick<CameraFrame, 'width' | 'height' | 'rgb'>, width = DEFAULT_PICTURE_WIDTH, quality = PICTURE_QUALITY): EncodedPicture {
  const small = shrinkToRgba(frame, width);
  const out = jpeg.encode({ width: small.width, height: small.height, data: small.rgba }, quality);
  return { jpeg: new Uint8Array(out.data.buffer, out.data.byteOffset, out.data.length), width: small.width, height: small.height };
}
