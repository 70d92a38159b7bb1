/**
 * The commands the bundled gaits were tuned at (the twin trials' walk and turn): their manifests
 * say them as `command.nominal`, which is what the walk and turn verbs send unless asked.
 */
export const NOMINAL = {
  /** The top of the walk's vx range: the gait reads vx as stride, and at 0.35 it falls. */
  walk: { vx: 0.3 },
  /** Inside the turn's ±2 rad/s range. */
  turn: { vyaw: 1.5 },
} as const;
