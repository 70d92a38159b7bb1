/**
 * What is where in a compiled twin: the duck's root body and free joint, its 14 policy joints
 * (found by name, any order in the file) and the servo driving each, its IMU, its camera and its
 * home pose, and the room's ball; and how to read the IMU and the camera so found. quackd's own
 * duck and a user's model (settings `mjcf`) are read the same way, so the plant assumes no names
 * of ours. A model that lacks something the loop needs is refused here, in one line naming the
 * file and the missing part.
 *
 * Found, in order of preference:
 * - IMU gyro: the sensor named in the settings; a gyro named `imu_ang_vel` (the Microduck
 *   models'); any gyro on the trunk. None: the trunk's own angular velocity, in its frame.
 * - feet: the bodies the ankle joints move (and what is welded to them); a foot touches the floor
 *   when one of its geoms is in contact with a geom of the world body (the room's floor).
 * - IMU accelerometer: any accelerometer on the trunk. None: what one at rest would read, the
 *   reaction to gravity (9.81 m/s² up), in the orientation's frame.
 * - IMU orientation: the framequat named in the settings; any framequat on the trunk; the gyro's
 *   site; the trunk body itself. Gravity is then Rᵀ·(0, 0, −1) of that frame.
 * - camera: the site or camera named in the settings; a site or camera `head_camera`; the body
 *   the head_roll joint moves. A MuJoCo camera looks along its −z; a site or a body along whichever
 *   of its axes points most forward (the trunk's +x) in the home pose.
 * - home pose: a `home` keyframe; else the walk policy's manifest `home`.
 */
import { J, MICRODUCK_JOINTS } from '../../../policy/microduck.js';
import { lowestPoint } from './clearance.js';
import { gravityInFrame, type Vec3 } from './pose.js';
import { MJ, type MjSim } from './wasm.js';

/** A model of the user's, as the robot's settings and its walk policy describe it. */
export interface DuckModel {
  /** The MJCF file, absolute: a scene or the robot's own file, its meshes and includes beside it. */
  readonly mjcf: string;
  /** The 14 joint names in policy order (the walk policy's manifest `joints`, else the Microduck's). */
  readonly joints?: readonly string[];
  /** Where those names came from, for a refusal: `the walk policy's joints`. */
  readonly jointsFrom?: string;
  /** The pose to start in when the model has no `home` keyframe (the walk policy's manifest `home`). */
  readonly home?: readonly number[];
  /** Sensor and site/camera names, when the model's are not found by type (see the top). */
  readonly gyro?: string;
  readonly framequat?: string;
  readonly camera?: string;
}

/** A model the twin cannot drive: the message is the one line to show. */
export class AnatomyError extends Error {
  readonly kind = 'duck-anatomy' as const;
}

export interface PolicyJoint {
  readonly name: string;
  readonly qpos: number;
  readonly dof: number;
  /** The position servo driving it: ctrl index. */
  readonly actuator: number;
  readonly min: number;
  readonly max: number;
}

/** Where a frame's orientation is read from: a framequat's data, a site's or a body's pose. */
export type FrameSource = { readonly kind: 'sensor'; readonly adr: number } | { readonly kind: 'site' | 'body'; readonly id: number };

export interface Anatomy {
  /** The duck's root body (its trunk), the one with the free joint. */
  readonly trunk: number;
  readonly freeQpos: number;
  readonly freeDof: number;
  readonly joints: readonly PolicyJoint[];
  /** Gyro: sensordata address, or none: the trunk's own angular velocity. */
  readonly gyro: { readonly adr: number } | undefined;
  /** Accelerometer: sensordata address, or none: the reaction to gravity alone. */
  readonly accel: { readonly adr: number } | undefined;
  readonly orientation: FrameSource;
  readonly camera: { readonly kind: 'site' | 'camera' | 'body'; readonly id: number };
  /** The home keyframe's id, or the joint angles to start in. */
  readonly home: { readonly key: number } | { readonly pose: readonly number[] };
  /** The bodies the left and right ankle joints move. */
  readonly feet: readonly [number, number];
  readonly ball: number;
  readonly ballQpos: number;
  readonly ballDof: number;
}

export interface AnatomyNames {
  /** The model as a refusal names it: its file, or `quackd's duck`. */
  readonly file: string;
  readonly duck: Omit<DuckModel, 'mjcf'>;
  readonly ball: { readonly body: string; readonly freejoint: string };
}

const HOME_KEY = 'home';
const CAMERA = 'head_camera';
const GYRO = 'imu_ang_vel';
/** An unlimited hinge still gets limits for the safety stage: a full turn either way. */
const UNLIMITED = Math.PI;

export function findAnatomy(sim: MjSim, names: AnatomyNames): Anatomy {
  const { file, duck } = names;
  // `what` goes straight after the file name: ' has no …' or ': …'.
  const refuse = (what: string): never => {
    throw new AnatomyError(`${file}${what}`);
  };
  const wanted = duck.joints ?? MICRODUCK_JOINTS;
  const from = duck.jointsFrom ?? 'the Microduck joints';
  // Every missing name at once: a model exported with other names lacks several, and one fix per try is slow.
  const missing = wanted.filter((name) => sim.id('joint', name) < 0);
  if (missing.length > 0) refuse(` has no joint${missing.length === 1 ? '' : 's'} ${missing.map((n) => `"${n}"`).join(', ')} (${from}: ${wanted.join(', ')})`);
  const ids = wanted.map((name) => {
    const id = sim.id('joint', name);
    if (sim.jntType()[id] !== MJ.joint.hinge) refuse(`: joint "${name}" is not a hinge`);
    return id;
  });
  const roots = sim.bodyRoot();
  const jointBody = sim.jntBody();
  const trunk = roots[jointBody[ids[0] ?? -1] ?? -1] ?? -1;
  ids.forEach((id, i) => {
    if (roots[jointBody[id] ?? -1] !== trunk) refuse(`: joints "${wanted[0] ?? ''}" and "${wanted[i] ?? ''}" are not on the same robot (body tree)`);
  });
  const trunkName = sim.name('body', trunk);
  const free = Array.from({ length: sim.njnt }, (_, j) => j).find((j) => sim.jntType()[j] === MJ.joint.free && jointBody[j] === trunk);
  if (free === undefined) refuse(`: the duck's root body "${trunkName}" has no free joint (a duck fixed to the world cannot walk)`);
  if (!Number.isFinite(lowestPoint(sim, trunk))) refuse(`: no geom of the duck collides with anything (it would fall through the floor)`);
  const qposAdr = sim.jntQposAdr();
  const dofAdr = sim.jntDofAdr();
  const range = sim.jntRange();
  const joints = ids.map((id, i): PolicyJoint => {
    const name = wanted[i] ?? '';
    const [lo, hi] = [range[2 * id] ?? 0, range[2 * id + 1] ?? 0];
    return { name, qpos: qposAdr[id] ?? -1, dof: dofAdr[id] ?? -1, actuator: servoOf(sim, id, name, refuse), min: lo < hi ? lo : -UNLIMITED, max: lo < hi ? hi : UNLIMITED };
  });
  const ballBody = sim.id('body', names.ball.body);
  const ballFree = sim.id('joint', names.ball.freejoint);
  if (ballBody < 0 || ballFree < 0) refuse(` has no ball "${names.ball.body}" (the living room was not put around it)`);
  const gyro = findGyro(sim, trunk, duck.gyro, refuse);
  const accel = firstOnTrunk(sim, MJ.sensor.accelerometer, trunk);
  const key = sim.id('key', HOME_KEY);
  return {
    trunk,
    freeQpos: qposAdr[free ?? -1] ?? -1,
    freeDof: dofAdr[free ?? -1] ?? -1,
    joints,
    gyro: gyro === undefined ? undefined : { adr: sim.sensorAdr()[gyro] ?? -1 },
    accel: accel === undefined ? undefined : { adr: sim.sensorAdr()[accel] ?? -1 },
    orientation: findOrientation(sim, trunk, duck.framequat, gyro, refuse),
    camera: findCamera(sim, duck.camera, joints[J.head_roll]?.name ?? '', refuse),
    home: key >= 0 ? { key } : { pose: duck.home ?? refuse(` has no "${HOME_KEY}" keyframe and no home pose was given`) },
    ball: ballBody,
    ballQpos: qposAdr[ballFree] ?? -1,
    ballDof: dofAdr[ballFree] ?? -1,
    feet: [J.left_ankle, J.right_ankle].map((j) => sim.jntBody()[sim.id('joint', joints[j]?.name ?? '')] ?? -1) as [number, number],
  };
}

/** The first position servo on the joint (affine bias −kp·q): what a policy's targets drive. */
function servoOf(sim: MjSim, joint: number, name: string, refuse: (what: string) => never): number {
  let other: number | undefined;
  for (let a = 0; a < sim.nu; a++) {
    if (sim.actuatorJoint(a) !== joint) continue;
    if (sim.actuatorBiasType()[a] === MJ.bias.affine && (sim.actuatorBiasPrm()[10 * a + 1] ?? 0) < 0) return a;
    other ??= a;
  }
  if (other !== undefined) return refuse(`: actuator "${sim.name('actuator', other)}" on joint "${name}" is not a position servo (the policies give angles)`);
  return refuse(` has no actuator on joint "${name}"`);
}

/** Whether a sensor of this type is on the trunk, or welded to it. */
function onTrunk(sim: MjSim, sensor: number, trunk: number): boolean {
  const objType = sim.sensorObjType()[sensor];
  const obj = sim.sensorObjId()[sensor] ?? -1;
  const body = objType === MJ.obj.site ? (sim.siteBody()[obj] ?? -1) : objType === MJ.obj.body || objType === MJ.obj.xbody ? obj : -1;
  return body >= 0 && sim.bodyWeld()[body] === trunk;
}

function named(sim: MjSim, name: string | undefined, type: number, what: string, refuse: (what: string) => never): number | undefined {
  if (name === undefined) return undefined;
  const id = sim.id('sensor', name);
  if (id < 0 || sim.sensorType()[id] !== type) refuse(` has no ${what} sensor "${name}"`);
  return id;
}

function firstOnTrunk(sim: MjSim, type: number, trunk: number): number | undefined {
  return Array.from({ length: sim.nsensor }, (_, s) => s).find((s) => sim.sensorType()[s] === type && onTrunk(sim, s, trunk));
}

function findGyro(sim: MjSim, trunk: number, name: string | undefined, refuse: (what: string) => never): number | undefined {
  const byName = named(sim, name, MJ.sensor.gyro, 'gyro', refuse);
  if (byName !== undefined) return byName;
  const usual = sim.id('sensor', GYRO);
  return usual >= 0 && sim.sensorType()[usual] === MJ.sensor.gyro ? usual : firstOnTrunk(sim, MJ.sensor.gyro, trunk);
}

function findOrientation(sim: MjSim, trunk: number, name: string | undefined, gyro: number | undefined, refuse: (what: string) => never): FrameSource {
  const quat = named(sim, name, MJ.sensor.framequat, 'framequat', refuse) ?? firstOnTrunk(sim, MJ.sensor.framequat, trunk);
  if (quat !== undefined) return { kind: 'sensor', adr: sim.sensorAdr()[quat] ?? -1 };
  // A gyro measures in its site's frame: gravity is read in the same frame.
  if (gyro !== undefined && sim.sensorObjType()[gyro] === MJ.obj.site) return { kind: 'site', id: sim.sensorObjId()[gyro] ?? -1 };
  return { kind: 'body', id: trunk };
}

function findCamera(sim: MjSim, name: string | undefined, headJoint: string, refuse: (what: string) => never): Anatomy['camera'] {
  const look = (n: string): Anatomy['camera'] | undefined => {
    const site = sim.id('site', n);
    if (site >= 0) return { kind: 'site', id: site };
    const camera = sim.id('camera', n);
    return camera >= 0 ? { kind: 'camera', id: camera } : undefined;
  };
  if (name !== undefined) return look(name) ?? refuse(` has no site or camera "${name}" (the camera setting)`);
  return look(CAMERA) ?? { kind: 'body', id: sim.jntBody()[sim.id('joint', headJoint)] ?? 0 };
}

/**
 * The gyro's reading, rad/s, in its frame; without one, the trunk's angular velocity in the
 * trunk's frame, Rᵀ·ω, from the same stage of the step as a sensor's (so a model with an IMU and
 * one without read alike).
 */
export function readGyro(sim: MjSim, a: Anatomy): Vec3 {
  if (a.gyro !== undefined) {
    const [d, at] = [sim.sensordata(), a.gyro.adr];
    return [d[at] ?? Number.NaN, d[at + 1] ?? Number.NaN, d[at + 2] ?? Number.NaN];
  }
  const w = sim.cvel().subarray(6 * a.trunk, 6 * a.trunk + 3);
  const r = sim.xmat().subarray(9 * a.trunk, 9 * a.trunk + 9);
  const col = (c: number): number => (r[c] ?? Number.NaN) * (w[0] ?? 0) + (r[3 + c] ?? Number.NaN) * (w[1] ?? 0) + (r[6 + c] ?? Number.NaN) * (w[2] ?? 0);
  return [col(0), col(1), col(2)];
}

/** Gravity (0, 0, −1) seen from the IMU's frame. */
export function readGravity(sim: MjSim, a: Anatomy): Vec3 {
  const o = a.orientation;
  if (o.kind === 'sensor') {
    const d = sim.sensordata();
    return gravityInFrame([d[o.adr] ?? Number.NaN, d[o.adr + 1] ?? Number.NaN, d[o.adr + 2] ?? Number.NaN, d[o.adr + 3] ?? Number.NaN]);
  }
  // Rᵀ·(0, 0, −1) is minus R's bottom row.
  const m = o.kind === 'site' ? sim.siteXmat() : sim.xmat();
  return [-(m[9 * o.id + 6] ?? Number.NaN), -(m[9 * o.id + 7] ?? Number.NaN), -(m[9 * o.id + 8] ?? Number.NaN)];
}

/** Standard gravity, m/s²: what an accelerometer at rest reads, upward. */
const STANDARD_GRAVITY = 9.80665;

/** Whether each foot, left then right, is in contact with the world body's geoms (the floor). */
export function readFeet(sim: MjSim, a: Anatomy): [boolean, boolean] {
  const feet: [boolean, boolean] = [false, false];
  if (sim.ncon() === 0) return feet;
  const geomBody = sim.geomBody();
  const weld = sim.bodyWeld();
  const footOf = (g: number): number => a.feet.indexOf(weld[geomBody[g] ?? -1] ?? -1);
  const pairs = sim.contactGeoms();
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    const [g1, g2] = [pairs[i] ?? -1, pairs[i + 1] ?? -1];
    const [f1, f2] = [footOf(g1), footOf(g2)];
    if (f1 >= 0 && geomBody[g2] === 0) feet[f1] = true;
    if (f2 >= 0 && geomBody[g1] === 0) feet[f2] = true;
  }
  return feet;
}

/** What an accelerometer at rest reads: the reaction to gravity (a unit vector pointing down), m/s². */
export const restingAccel = (g: Vec3): Vec3 => [-STANDARD_GRAVITY * g[0], -STANDARD_GRAVITY * g[1], -STANDARD_GRAVITY * g[2]];

/**
 * The accelerometer's reading, m/s², in its frame; without one, or before the first step (MuJoCo's
 * accelerometer reads zeros after a forward alone, and the duck is placed at rest), the reaction
 * to gravity in the orientation's frame.
 */
export function readAccel(sim: MjSim, a: Anatomy, stepped = true): Vec3 {
  if (a.accel !== undefined && stepped) {
    const [d, at] = [sim.sensordata(), a.accel.adr];
    return [d[at] ?? Number.NaN, d[at + 1] ?? Number.NaN, d[at + 2] ?? Number.NaN];
  }
  return restingAccel(readGravity(sim, a));
}

/** The camera frame's world position and row-major rotation. */
export function cameraFrame(sim: MjSim, camera: Anatomy['camera']): { readonly pos: Vec3; readonly mat: ArrayLike<number> } {
  const [pos, mat] = camera.kind === 'site' ? [sim.siteXpos(), sim.siteXmat()] : camera.kind === 'camera' ? [sim.camXpos(), sim.camXmat()] : [sim.xpos(), sim.xmat()];
  const c = camera.id;
  return { pos: [pos[3 * c] ?? 0, pos[3 * c + 1] ?? 0, pos[3 * c + 2] ?? 0], mat: mat.subarray(9 * c, 9 * c + 9) };
}

/** An axis of a frame: column `col` of its rotation, times `sign`. */
export interface Axis {
  readonly col: 0 | 1 | 2;
  readonly sign: 1 | -1;
}

/** The camera's optical axis: −z for a MuJoCo camera; else its axis pointing most along the trunk's +x now. */
export function opticalAxis(sim: MjSim, a: Anatomy): Axis {
  if (a.camera.kind === 'camera') return { col: 2, sign: -1 };
  const { mat } = cameraFrame(sim, a.camera);
  const t = sim.xmat().subarray(9 * a.trunk, 9 * a.trunk + 9);
  let best: Axis = { col: 0, sign: 1 };
  let most = -Infinity;
  for (const col of [0, 1, 2] as const) {
    // Column `col` of the camera frame against column 0 (forward) of the trunk's.
    const dot = (mat[col] ?? 0) * (t[0] ?? 0) + (mat[3 + col] ?? 0) * (t[3] ?? 0) + (mat[6 + col] ?? 0) * (t[6] ?? 0);
    if (Math.abs(dot) > most) {
      most = Math.abs(dot);
      best = { col, sign: dot >= 0 ? 1 : -1 };
    }
  }
  return best;
}
