/**
 * The commands the bundled gaits were tuned at (the twin trials' walk and turn): their manifests
 * say them as `command.nominal`, which is what the walk and turn verbs send unless asked.
 */
export const NOMINAL = {
  /** The top of the walk's vx range: the gait reads vx as stride, and at 0.35 it falls. */
  walk: { vx: 0.3 },
  /**
   * Inside the turn's ±2 rad/s range, slow enough to land where asked once the duck stands after
   * it: at 1.5 rad/s the stand after a turn carried it on 0–8° (5° asked, 9° turned), at 0.6 it
   * lands within 1° (the twin, turns of 4–90°).
   */
  turn: { vyaw: 0.6 },
} as const;

/**
 * The fraction of its nominal the bundled walk makes good, measured in the twin (12 seeds, 10 s
 * walks from standing at vx 0.3: 0.127–0.144 m/s, median 0.134): its manifest says it as
 * `command.made_good`, and a body with no odometry (the servo buses) times a walk by it.
 */
export const MADE_GOOD = { walk: { vx: 0.44 } } as const;
