/** Headings as the Microduck bodies report a turn. */

/**
 * Degrees turned from `before` to `after` (rad), read against the goal: a turn of 180° that
 * overshoots a little is 185° left, not 175° right. Exact while the miss is under half a turn.
 */
export function turnedDeg(before: number, after: number, goalRad: number): number {
  const off = after - before - goalRad;
  return Math.round(((goalRad + Math.atan2(Math.sin(off), Math.cos(off))) * 180) / Math.PI);
}
