/** The ball by colour: blobs, roundness, bearing and distance on frames drawn with known answers. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CameraFrame } from '../../src/camera/camera.js';
import { detectBall, ORANGE, roundEnough } from '../../src/vision/ball.js';
import { colourMask, findBlobs } from '../../src/vision/blobs.js';
import { focalPx, type Lens } from '../../src/vision/lens.js';

const lens: Lens = { width: 320, height: 240, fov_deg: 60, mount: { height_m: 0.06, pitch_deg: 0, ahead_m: 0 } };
const look = { lens, colour: ORANGE, diameter_m: 0.12 };
const f = focalPx(lens);

/** A grey frame with orange shapes painted by `inside(col, row)`. */
function frame(inside: (col: number, row: number) => boolean): CameraFrame {
  const rgb = new Uint8Array(lens.width * lens.height * 3).fill(128);
  for (let row = 0; row < lens.height; row++) {
    for (let col = 0; col < lens.width; col++) {
      if (!inside(col + 0.5, row + 0.5)) continue;
      rgb.set([240, 110, 30], (row * lens.width + col) * 3);
    }
  }
  return { width: lens.width, height: lens.height, rgb, at: 0 };
}

/** The disc a 12 cm ball makes at `distance` and `bearingDeg` (left +), level with the lens. */
function ballAt(distance: number, bearingDeg: number): CameraFrame {
  const b = (bearingDeg * Math.PI) / 180;
  const col = lens.width / 2 - f * Math.tan(b);
  // Off to the side a lens draws a ball as an ellipse: 1/cos² across, 1/cos down.
  const across = (f * Math.tan(Math.asin(0.06 / distance))) / Math.cos(b) ** 2;
  const down = (f * Math.tan(Math.asin(0.06 / distance))) / Math.cos(b);
  return frame((c, r) => ((c - col) / across) ** 2 + ((r - lens.height / 2) / down) ** 2 < 1);
}

describe('colour blobs', () => {
  it('orange is in the range, grey, red-pink and blue are not; a range through red wraps', () => {
    const px = (rgb: number[]) => colourMask({ width: 1, height: 1, rgb: Uint8Array.from(rgb) }, ORANGE)[0];
    assert.deepEqual([px([240, 110, 30]), px([128, 128, 128]), px([230, 20, 120]), px([30, 60, 200]), px([40, 20, 8])], [1, 0, 0, 0, 0]);
    const red = { hue_min: 340, hue_max: 10, sat_min: 0.5, val_min: 0.2 };
    assert.equal(colourMask({ width: 1, height: 1, rgb: Uint8Array.from([230, 20, 40]) }, red)[0], 1);
    assert.equal(colourMask({ width: 1, height: 1, rgb: Uint8Array.from([240, 110, 30]) }, red)[0], 0);
  });

  it('finds 4-connected regions with their boxes; diagonal neighbours are apart', () => {
    const mask = Uint8Array.from([1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    assert.deepEqual(findBlobs(mask, 4), [
      { area: 4, minCol: 0, maxCol: 1, minRow: 0, maxRow: 1 },
      { area: 1, minCol: 2, maxCol: 2, minRow: 2, maxRow: 2 },
      { area: 1, minCol: 3, maxCol: 3, minRow: 3, maxRow: 3 },
    ]);
  });

  it('a disc is round; a block, a stripe and a disc cut by the edge are told apart', () => {
    const blob = (area: number, w: number, h: number, minCol = 10) => ({ area, minCol, maxCol: minCol + w - 1, minRow: 10, maxRow: 10 + h - 1 });
    assert.equal(roundEnough(blob(314, 20, 20), 320, 240), true);
    assert.equal(roundEnough(blob(400, 20, 20), 320, 240), false, 'a block fills its box');
    assert.equal(roundEnough(blob(160, 40, 5), 320, 240), false, 'a stripe');
    assert.equal(roundEnough(blob(157, 10, 20, 0), 320, 240), true, 'half a disc at the left edge');
  });
});

describe('the ball from its blob', () => {
  // Cut by the frame's edge (0.4 m at -28°), the centre is found from the uncut side: within 1.5°.
  const cases: [number, number][] = [
    [0.5, 0],
    [1, 0],
    [1, 20],
    [2, -15],
    [3, 25],
    [4, -5],
    [0.4, -28],
  ];
  for (const [distance, bearing] of cases) {
    it(`${distance} m at ${bearing}°: bearing within ${Math.abs(bearing) > 27 ? 1.5 : 1}°, distance within 6 %`, () => {
      const seen = detectBall(ballAt(distance, bearing), look);
      assert.ok(seen !== undefined, 'ball not found');
      assert.ok(Math.abs(seen.bearing_deg - bearing) < (Math.abs(bearing) > 27 ? 1.5 : 1), `bearing ${seen.bearing_deg}`);
      assert.ok(Math.abs(seen.distance_m / distance - 1) < 0.06, `distance ${seen.distance_m}`);
    });
  }

  it('no orange, or only an orange block, is no ball; the ball beside a block is still found', () => {
    assert.equal(detectBall(frame(() => false), look), undefined);
    const block = (c: number, r: number) => c > 20 && c < 90 && r > 20 && r < 90;
    assert.equal(detectBall(frame(block), look), undefined);
    const ball = ballAt(1, 0);
    const both = frame((c, r) => block(c, r) || ball.rgb[(Math.floor(r) * lens.width + Math.floor(c)) * 3] === 240);
    assert.ok(Math.abs((detectBall(both, look)?.distance_m ?? 0) - 1) < 0.06);
  });

  it('a ball half out of the frame keeps its size from its height', () => {
    const seen = detectBall(ballAt(0.6, 30.5), look);
    assert.ok(seen !== undefined);
    assert.ok(Math.abs(seen.distance_m / 0.6 - 1) < 0.1, `distance ${seen.distance_m}`);
    assert.ok(Math.abs(seen.bearing_deg - 30.5) < 2, `bearing ${seen.bearing_deg}`);
  });
});
