/**
 * The Microduck's side of the policy contract (../shared/sim-kit/README.md): the 14 actuated
 * joints in policy order and the two home poses policies are trained around. One definition, so
 * the observation builders, the manifest defaults and the bundled graphs cannot disagree.
 */

/** Policy and MJCF actuator order. On hardware the mouth (motor slot 9) is not a policy joint. */
export const MICRODUCK_JOINTS = [
  'left_hip_yaw',
  'left_hip_roll',
  'left_hip_pitch',
  'left_knee',
  'left_ankle',
  'neck_pitch',
  'head_pitch',
  'head_yaw',
  'head_roll',
  'right_hip_yaw',
  'right_hip_roll',
  'right_hip_pitch',
  'right_knee',
  'right_ankle',
] as const;

export type MicroduckJoint = (typeof MICRODUCK_JOINTS)[number];

/** Every Microduck policy maps to 14 joint actions (the mouth excluded). */
export const MICRODUCK_ACTIONS = 14;

/** The control loop's rate on every Microduck body (a tick each 20 ms): a policy runs at the rate it was trained at, or not at all. */
export const MICRODUCK_CONTROL_HZ = 50;

/** Index of a joint in policy order. */
export const J: Readonly<Record<MicroduckJoint, number>> = Object.fromEntries(MICRODUCK_JOINTS.map((name, i) => [name, i])) as Record<MicroduckJoint, number>;

/**
 * The legacy pose (rad): microduck_runtime's DEFAULT_POSITION with the neck at -0.5 and the head
 * at 0.5, as the 51-input policies ran. quackd's bundled policies use it too, because the
 * bundled MuJoCo duck is built around the legacy model.
 */
export const LEGACY_HOME: readonly number[] = Object.freeze([0, 0, 0.6, -1.2, 0.6, -0.5, 0.5, 0, 0, 0, 0, -0.6, 1.2, -0.6]);

/** The alpha pose (rad): robotd's DEFAULT_POSITION = microduck_rl's HOME_FRAME "STAND2", which the 61-input policies are trained around. */
export const ALPHA_HOME: readonly number[] = Object.freeze([0, -0.0873, -0.4579, -0.0049, 0.453, 0.3491, 0.3491, 0, 0, 0, 0.0873, 0.4579, 0.0049, -0.453]);

/**
 * The Open Duck Mini v2's stance (rad): its reference runtime's `init_pos` (rustypot_position_hwi.py),
 * the playground's `home` keyframe, which its walk policies' observations and actions are relative
 * to. The same joint order as the Microduck's; the knees bend the other way (+1.37 against −1.2).
 */
export const OPEN_DUCK_MINI_V2_HOME: readonly number[] = Object.freeze([0.002, 0.053, -0.63, 1.368, -0.784, 0, 0, 0, 0, -0.003, -0.065, 0.635, 1.379, -0.796]);
