/**
 * The observation layouts quackd can build, by name, with their widths. A manifest names one in
 * `obs_layout`; a trained policy without that field gets the published layout its `obs_len`
 * implies (51 → microduck-51, 61 → microduck-61, 101 → open-duck-mini-v2). The builders are in observation.ts; the
 * layouts themselves are tabled in README.md beside this file.
 */
export const OBS_LAYOUTS = ['microduck-51', 'microduck-51-body', 'microduck-61', 'quackd-gait-1', 'open-duck-mini-v2'] as const;

export type ObsLayout = (typeof OBS_LAYOUTS)[number];

export const OBS_LEN: Readonly<Record<ObsLayout, number>> = {
  /** The legacy family (microduck_runtime, mjlab_microduck): twist command in 48..51. */
  'microduck-51': 51,
  /** The legacy standing-with-body-pose policies: the normalised body command in 48..51 instead. */
  'microduck-51-body': 51,
  /** robotd's alpha policies: twist, head command and body pose in 48..61. */
  'microduck-61': 61,
  /** quackd's bundled gaits and kicks: microduck-51, then cos 2πφ and sin 2πφ of the phase. */
  'quackd-gait-1': 53,
  /**
   * The Open Duck Mini v2 reference walk's (Open_Duck_Mini_Runtime v2_rl_walk_mujoco.py, trained in
   * Open_Duck_Playground): gyro, accelerometer, a 7-wide command, joints, velocities, three past
   * actions, the last motor targets, two foot contacts, the imitation phase (observation-open-duck.ts).
   */
  'open-duck-mini-v2': 101,
};

/** The published layout a trained policy of this width was built for, when its manifest does not say. */
export function defaultLayout(obsLen: number): ObsLayout | undefined {
  return obsLen === 51 ? 'microduck-51' : obsLen === 61 ? 'microduck-61' : obsLen === 101 ? 'open-duck-mini-v2' : undefined;
}
