/**
 * The Microduck's battery as a charge: its pack is a 2S LiPo (the firmware's low-battery fault is
 * at 6.4 V, 3.2 V a cell), and a cell's charge is read off its voltage on the usual LiPo
 * discharge curve. An estimate: under load the voltage sags, so a walking duck reads lower.
 */

const CELLS = 2;

/** Volts a cell, charge %: the usual resting LiPo curve, 3.2 V (the firmware's cut-off) to 4.2 V. */
const CURVE: readonly (readonly [number, number])[] = [
  [3.2, 0],
  [3.5, 5],
  [3.69, 10],
  [3.73, 20],
  [3.77, 30],
  [3.8, 40],
  [3.84, 50],
  [3.87, 60],
  [3.95, 70],
  [4.02, 80],
  [4.11, 90],
  [4.2, 100],
];

/** The charge a pack at `volts` holds, 0-100 %, whole. */
export function batteryPercent(volts: number): number {
  const cell = volts / CELLS;
  const first = CURVE[0]!;
  if (cell <= first[0]) return 0;
  let below = first;
  for (const point of CURVE) {
    if (cell <= point[0]) return Math.round(below[1] + ((cell - below[0]) / (point[0] - below[0])) * (point[1] - below[1]));
    below = point;
  }
  return 100;
}
