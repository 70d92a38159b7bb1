/**
 * The Microduck as MJCF, built from duck-spec.ts: primitive geoms only (boxes and capsules),
 * explicit link inertias, the 14 hinges in policy order, one position servo per hinge, and an IMU
 * site with a gyro and an orientation sensor. Generated rather than shipped as a file so that it
 * needs no asset copying and every number has one home.
 */
import {
  DUCK_JOINTS,
  HEAD,
  HOME_POSE,
  IMU_SITE,
  LEG,
  MASS,
  SERVO,
  SHAPE,
  TIMESTEP,
  TRUNK_IXZ,
  homeTrunkHeight,
  type DuckJoint,
  type LinkInertia,
  type Vec3,
} from './duck-spec.js';

/** Names the plant looks up. */
export const DUCK_NAMES = {
  trunk: 'trunk',
  freejoint: 'trunk_free',
  imu: 'imu',
  camera: 'head_camera',
  gyro: 'imu_gyro',
  accel: 'imu_accel',
  orientation: 'imu_quat',
} as const;

/**
 * Collision groups: the duck touches the world and the ball, never itself (as in the published
 * walking models, whose self-collision class is separate), which also keeps stepping cheap.
 */
export const CONTACT = {
  duck: 'contype="1" conaffinity="2"',
  world: 'contype="2" conaffinity="1"',
  ball: 'contype="3" conaffinity="3"',
} as const;

const n = (v: number): string => String(Number(v.toFixed(6)));
const v3 = (v: Vec3): string => v.map(n).join(' ');
const mirror = (v: Vec3, side: 1 | -1): Vec3 => [v[0], side * v[1], v[2]];

function joint(name: string): DuckJoint {
  const j = DUCK_JOINTS.find((d) => d.name === name);
  if (j === undefined) throw new Error(`duck-mjcf: no joint ${name}`);
  return j;
}

function hinge(name: string): string {
  const j = joint(name);
  return `<joint name="${j.name}" axis="${v3(j.axis)}" range="${n(j.range[0])} ${n(j.range[1])}"/>`;
}

function inertial(link: LinkInertia, side: 1 | -1 = 1, ixz = 0): string {
  const [ix, iy, iz] = link.inertia;
  return `<inertial pos="${v3(mirror(link.com, side))}" mass="${n(link.mass)}" fullinertia="${[ix, iy, iz, 0, ixz, 0].map(n).join(' ')}"/>`;
}

function box(name: string, half: Vec3, at: Vec3): string {
  return `<geom name="${name}" type="box" size="${v3(half)}" pos="${v3(at)}"/>`;
}

function leg(side: 'left' | 'right'): string {
  const s = side === 'left' ? 1 : -1;
  const r = LEG.hipPitch;
  return `
    <body name="${side}_hip_yaw_link" pos="0 ${n(s * LEG.hipYawY)} 0">
      ${hinge(`${side}_hip_yaw`)}
      ${inertial(MASS.hipYaw, s)}
      ${box(`${side}_hip_motor`, SHAPE.motor, [0, 0, -SHAPE.motor[2]])}
      <body name="${side}_hip_roll_link" pos="${v3(mirror(LEG.hipRoll, s))}">
        ${hinge(`${side}_hip_roll`)}
        ${inertial(MASS.hipRoll, s)}
        ${box(`${side}_pitch_motor`, [SHAPE.motor[0], SHAPE.motor[2], SHAPE.motor[1]], [MASS.hipRoll.com[0], s * r[1] * 0.75, 0])}
        <body name="${side}_thigh" pos="${v3(mirror(r, s))}">
          ${hinge(`${side}_hip_pitch`)}
          ${inertial(MASS.thigh, s)}
          <geom name="${side}_thigh" type="capsule" size="${n(SHAPE.limbRadius)}" fromto="0 0 0 0 0 ${n(-LEG.thigh)}"/>
          <body name="${side}_shin" pos="0 0 ${n(-LEG.thigh)}">
            ${hinge(`${side}_knee`)}
            ${inertial(MASS.shin, s)}
            <geom name="${side}_shin" type="capsule" size="${n(SHAPE.limbRadius)}" fromto="0 0 0 0 0 ${n(-LEG.shin)}"/>
            <body name="${side}_foot" pos="0 0 ${n(-LEG.shin)}">
              ${hinge(`${side}_ankle`)}
              ${inertial(MASS.foot, s)}
              ${box(`${side}_sole`, SHAPE.sole.half, [SHAPE.sole.forward, 0, -LEG.ankleToSole + SHAPE.sole.half[2]])}
              <site name="${side}_foot" pos="${n(SHAPE.sole.forward)} 0 ${n(-LEG.ankleToSole)}"/>
            </body>
          </body>
        </body>
      </body>
    </body>`;
}

function neckAndHead(): string {
  return `
    <body name="neck" pos="${v3(HEAD.neck)}">
      ${hinge('neck_pitch')}
      ${inertial(MASS.neck)}
      ${box('neck', SHAPE.neck.half, [0, 0, SHAPE.neck.half[2]])}
      <body name="head_pitch_link" pos="${v3(HEAD.headPitch)}">
        ${hinge('head_pitch')}
        ${inertial(MASS.headPitch)}
        <body name="head_yaw_link" pos="${v3(HEAD.headYaw)}">
          ${hinge('head_yaw')}
          ${inertial(MASS.headYaw)}
          ${box('head_yaw_motor', [SHAPE.motor[0], SHAPE.motor[2], SHAPE.motor[1]], [0, 0, MASS.headYaw.com[2]])}
          <body name="head" pos="${v3(HEAD.headRoll)}">
            ${hinge('head_roll')}
            ${inertial(MASS.head)}
            ${box('head', SHAPE.head.half, SHAPE.head.at)}
            <site name="${DUCK_NAMES.camera}" pos="${v3(HEAD.camera)}"/>
          </body>
        </body>
      </body>
    </body>`;
}

/** Defaults for every duck joint, servo and geom (class `duck`); `kp` overrides SERVO.kp. */
export function duckDefaults(kp: number = SERVO.kp): string {
  return `
    <default class="duck">
      <joint type="hinge" damping="${n(SERVO.damping)}" frictionloss="${n(SERVO.frictionloss)}" armature="${n(SERVO.armature)}"/>
      <position kp="${n(kp)}" forcerange="${n(-SERVO.forceLimit)} ${n(SERVO.forceLimit)}" inheritrange="1"/>
      <!-- TPU soles and PLA shells on a wooden floor: μ 0.8 is a guess (the published models use
           0.6–1). Spin and rolling friction near 0: MuJoCo takes the larger of two geoms' values,
           and the ball's own (room-mjcf.ts) must decide how it rolls. -->
      <geom ${CONTACT.duck} condim="3" friction="0.8 0.0001 0.0001" rgba="0.95 0.75 0.1 1"/>
    </default>`;
}

/** The duck's body tree; the caller puts it in a worldbody (pose comes from the keyframe). */
export function duckBody(): string {
  return `
    <body name="${DUCK_NAMES.trunk}" childclass="duck">
      <freejoint name="${DUCK_NAMES.freejoint}"/>
      ${inertial(MASS.trunk, 1, TRUNK_IXZ)}
      ${box('trunk', SHAPE.trunk.half, SHAPE.trunk.at)}
      <site name="${DUCK_NAMES.imu}" pos="${v3(IMU_SITE)}"/>
      ${leg('left')}
      ${neckAndHead()}
      ${leg('right')}
    </body>`;
}

/** One position servo per joint, in policy order: ctrl[i] is the target of DUCK_JOINTS[i]. */
export function duckActuators(): string {
  return DUCK_JOINTS.map((j) => `<position class="duck" name="${j.name}" joint="${j.name}"/>`).join('\n    ');
}

export function duckSensors(): string {
  return `<gyro name="${DUCK_NAMES.gyro}" site="${DUCK_NAMES.imu}"/>
    <accelerometer name="${DUCK_NAMES.accel}" site="${DUCK_NAMES.imu}"/>
    <framequat name="${DUCK_NAMES.orientation}" objtype="site" objname="${DUCK_NAMES.imu}"/>`;
}

/** The duck's part of a home keyframe: its free joint at (x, y) facing +x with the feet on the floor, then the home pose. */
export function duckHomeQpos(x: number, y: number): number[] {
  return [x, y, homeTrunkHeight(), 1, 0, 0, 0, ...HOME_POSE];
}

/**
 * quackd's duck alone as an MJCF file: no room, no floor, a `home` keyframe. What a model of your
 * own (settings `mjcf`) can start from, and what the tests export one from.
 */
export function standaloneDuckMjcf(kp?: number): string {
  return `<mujoco model="quackd-duck">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="${n(TIMESTEP)}" integrator="implicitfast"/>
  <default>${duckDefaults(kp)}
  </default>
  <worldbody>${duckBody()}
  </worldbody>
${duckModelEnd(`<key name="home" qpos="${duckHomeQpos(0, 0).map(n).join(' ')}" ctrl="${HOME_POSE.map(n).join(' ')}"/>`)}`;
}

/** A model's end after its worldbody: the duck's servos and sensors, then `keys` (its keyframes). */
export function duckModelEnd(keys: string): string {
  return `  <actuator>
    ${duckActuators()}
  </actuator>
  <sensor>
    ${duckSensors()}
  </sensor>
  <keyframe>
    ${keys}
  </keyframe>
</mujoco>
`;
}
