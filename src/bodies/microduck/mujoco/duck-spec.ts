/**
 * The numbers of quackd's own Microduck model: joints, limits, home pose, link geometry, masses
 * and actuator gains, each with where it came from. duck-mjcf.ts turns them into MJCF; tests and
 * the plant read them from here, so the model and its checks cannot drift apart.
 *
 * Sources (read, not copied: only the numbers are used; no mesh or XML text of theirs is here):
 *  [L] legacy Microduck, apirrone/mjlab_microduck `src/mjlab_microduck/robot/microduck/robot.xml`
 *      @17d88a6 — the model the legacy home pose belongs to. Positions below were measured by
 *      forward kinematics of its bodies (meshes stripped) in @mujoco/mujoco 3.14.
 *  [A] current ("alpha") Microduck, pollen-robotics/microduck_rl
 *      `src/mjlab_microduck/robot/microduck/robot_allcollisions.xml` @e1efc69 (Apache-2.0 XML),
 *      measured the same way; its inertia tensors were rotated into the frames used here.
 *  [K] ../shared/sim-kit/README.md (the published sim gains and the two home poses).
 *  [X] ROBOTIS e-Manual, XL330-M288-T: 20 × 34 × 26 mm, 18 g, 0.60 N·m stall and 123 rev/min
 *      no load at 6.0 V.
 * Legs follow [L] (42 mm thigh and shin in both models, and the home pose is [L]'s); trunk and
 * head follow [A], the model with a full head (Pi Zero, camera, speaker): 0.745 kg in all, against
 * 0.737 kg for [A] and 0.542 kg for [L]. [A]'s 53.8 g trunk ballast (added in training code, not
 * in its XML) is left out.
 *
 * Frames: the duck's x points forward, y left, z up; the trunk origin is the midpoint of the two
 * hip-yaw axes at their height. At the zero pose every link frame is parallel to the trunk's.
 */

import type { Vec3 } from './pose.js';

export type { Vec3 };

export interface DuckJoint {
  readonly name: string;
  /** Hinge axis in the link frame (= trunk frame at the zero pose). */
  readonly axis: Vec3;
  readonly range: readonly [number, number];
  /** The legacy home pose [K], rad. */
  readonly home: number;
}

/** [L] ranges, except hip pitch (see below). The right leg's axes mirror the left's. */
const HIP_YAW = 0.3491; // ±20°
const HIP_ROLL = 0.6981; // ±40°
// [L]'s hip pitch is [−90°, 0] in a sign convention where the legacy home is out of range; [A]
// (and robot_walk.xml, per microduck_rl's docs) give ±90°.
const HIP_PITCH = 1.5708;
const KNEE = 1.9199; // ±110°
const ANKLE = 1.5708;
const NECK = 1.2217; // ±70°, neck and head pitch
const HEAD_YAW = 2.618; // ±150°
const HEAD_ROLL = 0.5236; // ±30°

const sym = (r: number): readonly [number, number] => [-r, r];

/**
 * The 14 actuated joints in the Microduck policy order [K]. Axes: [L]'s, measured at its zero
 * pose, so that +hip pitch and −knee bend the left leg into a crouch with the knee forward. [L]'s
 * right ankle axis is −y, which would tip the right foot 69° at the mirrored home pose
 * (−0.6, 1.2, −0.6); here it is +y, mirroring the left, so both feet are flat at home.
 */
export const DUCK_JOINTS: readonly DuckJoint[] = [
  { name: 'left_hip_yaw', axis: [0, 0, 1], range: sym(HIP_YAW), home: 0 },
  { name: 'left_hip_roll', axis: [-1, 0, 0], range: sym(HIP_ROLL), home: 0 },
  { name: 'left_hip_pitch', axis: [0, -1, 0], range: sym(HIP_PITCH), home: 0.6 },
  { name: 'left_knee', axis: [0, -1, 0], range: sym(KNEE), home: -1.2 },
  { name: 'left_ankle', axis: [0, -1, 0], range: sym(ANKLE), home: 0.6 },
  // −0.5 leans the neck forward and +0.5 brings the head back level: the legacy runtime's
  // --neck-pitch-default and --head-pitch-default [K].
  { name: 'neck_pitch', axis: [0, -1, 0], range: sym(NECK), home: -0.5 },
  { name: 'head_pitch', axis: [0, -1, 0], range: sym(NECK), home: 0.5 },
  { name: 'head_yaw', axis: [0, 0, 1], range: sym(HEAD_YAW), home: 0 },
  { name: 'head_roll', axis: [-1, 0, 0], range: sym(HEAD_ROLL), home: 0 },
  { name: 'right_hip_yaw', axis: [0, 0, 1], range: sym(HIP_YAW), home: 0 },
  { name: 'right_hip_roll', axis: [-1, 0, 0], range: sym(HIP_ROLL), home: 0 },
  { name: 'right_hip_pitch', axis: [0, 1, 0], range: sym(HIP_PITCH), home: -0.6 },
  { name: 'right_knee', axis: [0, 1, 0], range: sym(KNEE), home: 1.2 },
  { name: 'right_ankle', axis: [0, 1, 0], range: sym(ANKLE), home: -0.6 },
];

export const HOME_POSE: readonly number[] = DUCK_JOINTS.map((j) => j.home);

/** [X] at 6.0 V: 123 rev/min. The safety stage's per-tick step limit is this × one period. */
export const JOINT_MAX_VELOCITY = (123 * 2 * Math.PI) / 60;

/**
 * Position servos. Force range, damping, friction loss and armature are the published sim values
 * [K]: ±0.96 N·m (microduck_rl's current `chosen_actuator`), 0.044 / 0.013 / 0.0017 (legacy A).
 * kp is not: the published 0.43–0.55 N·m/rad cannot hold the legacy crouch without a policy. At
 * 0.55 the hip–knee–ankle springs in series (≈ 0.37 N·m/rad on the trunk's pitch) are softer than
 * gravity's pull on the upper body (0.59 kg, 79 mm above the hip axis: 0.46 N·m/rad), so the duck
 * folds and falls within a second (measured; the linearised stiffness matrix has a negative
 * determinant). A real duck holds the pose through its 288:1 gearbox, whose load-dependent
 * friction (BAM's M6 fit for the XL330: ~40–50 % of the load at rest) the PD fit folds into one
 * constant. Doubling kp to 1.1 holds it (tilt ≈ 2°); sim-kit saw a trained walk policy walk at
 * 0.3 m/s only with kp doubled. The plant takes another kp for experiments (createMujocoPlant).
 */
export const SERVO = { kp: 1.1, forceLimit: 0.96, damping: 0.044, frictionloss: 0.013, armature: 0.0017 } as const;

/** The published sim kp [K], for comparison runs. */
export const PUBLISHED_KP = 0.55;

/** The physics step and how many make one 50 Hz control period [K]. */
export const TIMESTEP = 0.005;
export const STEPS_PER_PERIOD = 4;

/** A link's mass properties about its own frame (the joint anchor), trunk-parallel axes. */
export interface LinkInertia {
  readonly mass: number;
  readonly com: Vec3;
  /** Principal moments along x, y, z (off-diagonal terms under 3 % are dropped). */
  readonly inertia: Vec3;
}

/** Leg geometry [L], left side; the right mirrors y. */
export const LEG = {
  hipYawY: 0.02, // yaw axes 20 mm either side of the midline
  hipRoll: [0.0145, 0, -0.0286] as Vec3, // roll axis from the yaw anchor
  // Pitch axis from the roll anchor. The pitch, knee and ankle hinges all run along y, so where
  // along y they sit changes nothing: they are put in the leg's plane, which [L]'s foot sites place
  // 60 mm from the midline (20 + 40 mm). Along x: [L] puts the pitch axis 10 mm behind the yaw axes; here it is 9.5 mm
  // ahead, so that at the home pose (head leaned forward, and [A]'s head is 2.5× [L]'s) the upper
  // body nearly balances over the hips and the whole duck over its ankles. Measured at kp 1.1: the
  // duck holds the home pose (tilt < 10°) with the pitch axes 4.5 to 17 mm ahead of the yaw axes.
  hipPitch: [-0.005, 0.04, 0] as Vec3,
  thigh: 0.042,
  shin: 0.042,
  ankleToSole: 0.021, // [L]: its foot site is 21 mm below the ankle axis
} as const;

/** Link masses [L] (legs) and [A] (trunk, neck, head), COM and moments as measured (see top). */
export const MASS = {
  trunk: { mass: 0.199224, com: [-0.0286, 0, 0.0078], inertia: [1.24e-4, 1.46e-4, 1.15e-4] },
  hipYaw: { mass: 0.0258974, com: [0.0002, 0, -0.021], inertia: [5.33e-6, 5.9e-6, 2.53e-6] },
  hipRoll: { mass: 0.0311996, com: [-0.0135, 0.0346, 0], inertia: [6.95e-6, 5.5e-6, 9.81e-6] },
  thigh: { mass: 0.0265433, com: [0, 0, -0.0289], inertia: [7.35e-6, 5.53e-6, 3.81e-6] },
  shin: { mass: 0.0265433, com: [0, 0, -0.0289], inertia: [7.35e-6, 5.53e-6, 3.81e-6] },
  foot: { mass: 0.0227748, com: [0.0054, 0, -0.0129], inertia: [2.78e-6, 5.43e-6, 6.83e-6] },
  neck: { mass: 0.0368414, com: [0, 0, 0.025], inertia: [1.73e-5, 1.64e-5, 3.13e-6] },
  headPitch: { mass: 0.00572, com: [0, 0, 0.0117], inertia: [1.09e-6, 5.12e-7, 9.67e-7] },
  headYaw: { mass: 0.0486, com: [-0.0002, 0, 0.0178], inertia: [6.98e-6, 8.1e-6, 9.58e-6] },
  head: { mass: 0.188766, com: [0.0325, 0, 0.0046], inertia: [1.5e-4, 2.54e-4, 3.21e-4] },
} as const satisfies Record<string, LinkInertia>;

/** [A]'s trunk product of inertia ixz (the battery sits low at the back): not negligible. */
export const TRUNK_IXZ = -2.07e-5;

/** Neck and head chain [A], each from the previous anchor, at the zero pose. */
export const HEAD = {
  neck: [0.02, 0, 0.0374] as Vec3, // neck pitch axis: 20 mm ahead of the hips, on the trunk's top
  headPitch: [0, 0, 0.05] as Vec3,
  headYaw: [0, 0, 0.0187] as Vec3,
  headRoll: [-0.0179, 0, 0.0145] as Vec3,
  camera: [0.0733, 0, 0.0155] as Vec3, // [A]'s head_camera site, from the roll axis
} as const;

/** [A]'s IMU site, from the trunk origin, axes parallel to the trunk. */
export const IMU_SITE: Vec3 = [-0.027, 0, -0.0097];

/**
 * Collision shapes (half sizes). The trunk is [A]'s own convex proxy `trunk_shell_collision`;
 * the head box spans [A]'s head from behind its roll axis to the mouth tip (78 mm ahead) and holds
 * its camera; motors are XL330 boxes [X]. The sole is our choice, as both models' soles are
 * meshes: 8 × 4 cm, its centre 15 mm ahead of the ankle (a duck's foot reaches forward).
 */
export const SHAPE = {
  trunk: { half: [0.034, 0.031, 0.022] as Vec3, at: [-0.012, 0, -0.001] as Vec3 },
  motor: [0.013, 0.01, 0.017] as Vec3,
  limbRadius: 0.011,
  sole: { half: [0.04, 0.02, 0.005] as Vec3, forward: 0.015 },
  neck: { half: [0.011, 0.02, 0.025] as Vec3 },
  head: { half: [0.0453, 0.035, 0.035] as Vec3, at: [0.0327, 0, 0.005] as Vec3 },
} as const;

/** Trunk origin height with the feet flat on the floor at the home pose (legs only: z up). */
export function homeTrunkHeight(): number {
  const hip = HOME_POSE[2] ?? 0;
  const knee = HOME_POSE[3] ?? 0;
  // Thigh tilted by the hip angle, shin by hip + knee, both measured from the vertical.
  const legDrop = LEG.thigh * Math.cos(hip) + LEG.shin * Math.cos(hip + knee);
  return -LEG.hipRoll[2] + legDrop + LEG.ankleToSole;
}
