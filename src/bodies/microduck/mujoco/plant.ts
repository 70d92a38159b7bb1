/**
 * The MuJoCo twin of the Microduck as a control-loop Plant: 14 position servos in policy order,
 * an IMU (gyro, projected gravity) and joint state, stepped 4 × 5 ms per 20 ms period. It stands
 * in sim2d's living room laid out by sim2d's seed, and also tells what only a simulator knows:
 * the trunk's and the ball's poses, and whether the head camera sees the ball.
 *
 * Everything after `loadMujoco()` is synchronous and touches no main-thread API, so the control
 * worker can own a plant outright.
 */
import type { JointSpec, Plant, SensorFrame, TrunkPose } from '../../../control/plant.js';
import { BALL_RADIUS, cameraSeesBall, type Pose } from '../sim2d/arena.js';
import { layoutForSeed, type Sim2dLayout } from '../sim2d/sim2d-body.js';
import { DUCK_NAMES } from './duck-mjcf.js';
import { DUCK_JOINTS, JOINT_MAX_VELOCITY } from './duck-spec.js';
import { eulerFromQuat, gravityInFrame, quatFromEuler, type Quat } from './pose.js';
import { ROOM_NAMES, livingRoomMjcf } from './room-mjcf.js';
import { lowestPoint } from './clearance.js';
import { proximityOf } from './proximity.js';
import { loadMujoco, type MjSim, type Mujoco } from './wasm.js';

export interface MujocoPlantOptions {
  /** sim2d's layout seed: where the duck stands, which way it faces, where the ball lies. */
  readonly seed: number;
  /** A layout of your own instead of the seed's (a test's scene, a ball placed for a kick). */
  readonly layout?: Sim2dLayout;
  /** Start the duck tilted, rad (e.g. to watch it fall); its lowest point is put on the floor. */
  readonly tilt?: { readonly roll?: number; readonly pitch?: number };
  /** Servo stiffness, N·m/rad (default duck-spec's SERVO.kp). */
  readonly kp?: number;
}

export interface Point3 {
  readonly x: number;
  readonly y: number;
  readonly z: number;
}

/** The camera sees nothing while it looks more than this far up or down (a duck on its back). */
const CAMERA_MAX_ELEVATION = Math.PI / 4;

interface Ids {
  readonly trunk: number;
  readonly ball: number;
  readonly camera: number;
  readonly duckFreeQpos: number;
  readonly duckFreeDof: number;
  readonly ballQpos: number;
  readonly ballDof: number;
  readonly gyro: number;
  readonly orientation: number;
  readonly jointQpos: readonly number[];
  readonly jointDof: readonly number[];
}

export class MujocoPlant implements Plant {
  readonly joints: readonly JointSpec[];
  readonly layout: Sim2dLayout;
  readonly timestep: number;
  private readonly ids: Ids;
  private closed = false;

  /** Use createMujocoPlant or openMujocoPlant; this takes a compiled living-room model. */
  constructor(
    /** The raw simulation, for measurements a tuning search or a test needs beyond the Plant. */
    readonly sim: MjSim,
    options: MujocoPlantOptions,
  ) {
    this.ids = lookUp(sim);
    this.timestep = sim.timestep;
    const range = sim.jntRange();
    // Limits as compiled, which is what MuJoCo enforces (they equal duck-spec's).
    this.joints = DUCK_JOINTS.map((j) => {
      const joint = sim.id('joint', j.name);
      return { name: j.name, min: range[2 * joint] ?? j.range[0], max: range[2 * joint + 1] ?? j.range[1], maxVelocity: JOINT_MAX_VELOCITY };
    });
    this.layout = options.layout ?? layoutForSeed(options.seed);
    this.place(options);
  }

  /** Home keyframe, then the seed's layout: duck turned to its heading, ball at its spot. */
  private place(options: MujocoPlantOptions): void {
    const { sim, ids, layout } = this;
    sim.resetToKey(sim.id('key', ROOM_NAMES.home));
    const qpos = sim.qpos();
    const q = quatFromEuler({ roll: options.tilt?.roll ?? 0, pitch: options.tilt?.pitch ?? 0, yaw: layout.duck.heading });
    qpos[ids.duckFreeQpos] = layout.duck.x;
    qpos[ids.duckFreeQpos + 1] = layout.duck.y;
    qpos.set(q, ids.duckFreeQpos + 3);
    qpos[ids.ballQpos] = layout.ball.x;
    qpos[ids.ballQpos + 1] = layout.ball.y;
    qpos[ids.ballQpos + 2] = BALL_RADIUS;
    sim.forward();
    // The keyframe's height puts the untilted feet on the floor; a tilted duck is lowered or
    // raised until its lowest point touches it, so it starts neither in the floor nor dropped.
    const drop = lowestPoint(sim, ids.trunk);
    sim.qpos()[ids.duckFreeQpos + 2] = (sim.qpos()[ids.duckFreeQpos + 2] ?? 0) - drop;
    sim.forward();
  }

  read(): SensorFrame | undefined {
    if (this.closed) return undefined;
    const { sim, ids } = this;
    const qpos = sim.qpos();
    const qvel = sim.qvel();
    const sensors = sim.sensordata();
    const jointPos = Float64Array.from(ids.jointQpos, (a) => qpos[a] ?? Number.NaN);
    const jointVel = Float64Array.from(ids.jointDof, (a) => qvel[a] ?? Number.NaN);
    const gyro = [sensors[ids.gyro], sensors[ids.gyro + 1], sensors[ids.gyro + 2]] as const;
    const imu = sensorQuat(sensors, ids.orientation);
    const values = [...jointPos, ...jointVel, ...gyro, ...imu];
    if (!values.every(Number.isFinite)) return undefined;
    const trunk = this.trunk();
    return {
      gyro: [gyro[0] ?? 0, gyro[1] ?? 0, gyro[2] ?? 0],
      gravity: gravityInFrame(imu),
      jointPos,
      jointVel,
      trunk,
      proximity: proximityOf(trunk),
    };
  }

  send(targets: Float64Array): void {
    if (this.closed) return;
    if (targets.length !== DUCK_JOINTS.length) {
      throw new RangeError(`mujoco plant: ${targets.length} targets for ${DUCK_JOINTS.length} joints`);
    }
    // Actuators are declared in policy order (duck-mjcf.ts), so ctrl[i] drives joint i.
    this.sim.ctrl().set(targets);
  }

  advance(periodS: number): void {
    if (this.closed) return;
    const steps = Math.round(periodS / this.timestep);
    if (!(steps >= 1)) throw new RangeError(`mujoco plant: a period of ${periodS} s is under one ${this.timestep} s step`);
    this.sim.step(steps);
  }

  /** A closed twin is a plant whose link is gone: reads fail and nothing moves. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.sim.close();
  }

  /** Simulated seconds since the plant was made. */
  time(): number {
    return this.sim.time();
  }

  trunk(): TrunkPose {
    const { sim, ids } = this;
    const p = sim.xpos();
    const { roll, pitch, yaw } = eulerFromQuat(bodyQuat(sim, ids.trunk));
    return { x: p[3 * ids.trunk] ?? 0, y: p[3 * ids.trunk + 1] ?? 0, z: p[3 * ids.trunk + 2] ?? 0, roll, pitch, yaw };
  }

  /** The ball's centre, world frame. */
  ball(): Point3 {
    const p = this.sim.xpos();
    const b = this.ids.ball;
    return { x: p[3 * b] ?? 0, y: p[3 * b + 1] ?? 0, z: p[3 * b + 2] ?? 0 };
  }

  /**
   * The head camera on the floor plan: where it is and which way it looks (its optical axis
   * projected on the floor), or undefined while it looks mostly up or down.
   */
  camera(): Pose | undefined {
    const { sim, ids } = this;
    const pos = sim.siteXpos();
    const mat = sim.siteXmat();
    const c = ids.camera;
    // The optical axis is the site's x axis: column 0 of its row-major rotation matrix.
    const [ax, ay, az] = [mat[9 * c] ?? 0, mat[9 * c + 3] ?? 0, mat[9 * c + 6] ?? 0];
    if (Math.abs(Math.atan2(az, Math.hypot(ax, ay))) > CAMERA_MAX_ELEVATION) return undefined;
    return { x: pos[3 * c] ?? 0, y: pos[3 * c + 1] ?? 0, heading: Math.atan2(ay, ax) };
  }

  /** sim2d's camera rule (field of view, range, the sofa hiding the ball) on the twin's poses. */
  seesBall(): { readonly bearing: number; readonly distance: number } | undefined {
    const camera = this.camera();
    return camera === undefined ? undefined : cameraSeesBall(camera, this.ball());
  }

  /** A shove: adds this world-frame velocity (m/s) to the trunk, as a push would. */
  push(velocity: Point3): void {
    const qvel = this.sim.qvel();
    const d = this.ids.duckFreeDof;
    qvel[d] = (qvel[d] ?? 0) + velocity.x;
    qvel[d + 1] = (qvel[d + 1] ?? 0) + velocity.y;
    qvel[d + 2] = (qvel[d + 2] ?? 0) + velocity.z;
  }

  /** Sets the ball moving at this world-frame velocity (m/s), spin-free, as a kick leaves it. */
  hitBall(velocity: Point3): void {
    const qvel = this.sim.qvel();
    const d = this.ids.ballDof;
    qvel.set([velocity.x, velocity.y, velocity.z, 0, 0, 0], d);
  }
}

function bodyQuat(sim: MjSim, body: number): Quat {
  const q = sim.xquat();
  return [q[4 * body] ?? 1, q[4 * body + 1] ?? 0, q[4 * body + 2] ?? 0, q[4 * body + 3] ?? 0];
}

function sensorQuat(data: Float64Array, at: number): Quat {
  return [data[at] ?? Number.NaN, data[at + 1] ?? Number.NaN, data[at + 2] ?? Number.NaN, data[at + 3] ?? Number.NaN];
}

/** Every name the plant relies on, checked once: a model that lacks one is refused here. */
function lookUp(sim: MjSim): Ids {
  const need = (kind: Parameters<MjSim['id']>[0], name: string): number => {
    const id = sim.id(kind, name);
    if (id < 0) throw new Error(`mujoco plant: the model has no ${kind} "${name}"`);
    return id;
  };
  const qposAdr = sim.jntQposAdr();
  const dofAdr = sim.jntDofAdr();
  const sensorAdr = sim.sensorAdr();
  const duckFree = need('joint', DUCK_NAMES.freejoint);
  const ballFree = need('joint', ROOM_NAMES.ballFree);
  const joints = DUCK_JOINTS.map((j, i) => {
    const id = need('joint', j.name);
    if (sim.actuatorJoint(i) !== id) throw new Error(`mujoco plant: actuator ${i} does not drive ${j.name}`);
    return id;
  });
  const adr = (table: Int32Array, i: number): number => table[i] ?? -1;
  return {
    trunk: need('body', DUCK_NAMES.trunk),
    ball: need('body', ROOM_NAMES.ball),
    camera: need('site', DUCK_NAMES.camera),
    duckFreeQpos: adr(qposAdr, duckFree),
    duckFreeDof: adr(dofAdr, duckFree),
    ballQpos: adr(qposAdr, ballFree),
    ballDof: adr(dofAdr, ballFree),
    gyro: adr(sensorAdr, need('sensor', DUCK_NAMES.gyro)),
    orientation: adr(sensorAdr, need('sensor', DUCK_NAMES.orientation)),
    jointQpos: joints.map((j) => adr(qposAdr, j)),
    jointDof: joints.map((j) => adr(dofAdr, j)),
  };
}

/** A twin in sim2d's living room for this seed, from an already loaded MuJoCo. */
export function createMujocoPlant(mujoco: Mujoco, options: MujocoPlantOptions): MujocoPlant {
  const sim = mujoco.compile(livingRoomMjcf(options.kp === undefined ? {} : { kp: options.kp }));
  try {
    return new MujocoPlant(sim, options);
  } catch (err) {
    sim.close();
    throw err;
  }
}

/** Loads MuJoCo in this thread (once) and makes a twin: the one await a control worker needs. */
export async function openMujocoPlant(options: MujocoPlantOptions): Promise<MujocoPlant> {
  return createMujocoPlant(await loadMujoco(), options);
}
