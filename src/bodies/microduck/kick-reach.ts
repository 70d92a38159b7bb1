/**
 * Where the bundled kicks reach, measured in the twin from a duck standing (as it does after
 * every walk and turn): the ball's centre 0.075–0.15 m ahead of the trunk and up to 12 cm to the
 * kicking side moves 0.3–0.9 m; at 0.165 m ahead 0–0.3 m, past 0.18 m nothing. So close, a head
 * camera has lost it. Every Microduck body with these kicks says this reach to its pilot.
 */

/** The camera distance to stop at for a kick. */
export const KICK_FROM_M = 0.04;
/** The middle of that reach, in the duck's own frame: where a pilot lines the ball up for a kick. */
export const KICK_SPOT = { ahead_m: 0.115, side_m: 0.07 } as const;

/** The ball's centre `forward` m ahead of the trunk and `left` m to its left: which foot kicks it, if one can. */
export function footFor(forward: number, left: number): 'left' | 'right' | undefined {
  const inReach = forward >= 0.075 && forward <= 0.15 && Math.abs(left) <= 0.12;
  return inReach ? (left >= 0 ? 'left' : 'right') : undefined;
}

/** The reach in a pilot's fields, with the foot that reaches the ball now. */
export function reachData(foot: 'left' | 'right' | undefined): Record<string, unknown> {
  return { kick_from_m: KICK_FROM_M, kick_ahead_m: KICK_SPOT.ahead_m, kick_side_m: KICK_SPOT.side_m, ball_in_reach: foot ?? 'none' };
}
