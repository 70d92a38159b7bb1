/**
 * The MuJoCo twin of the Microduck as a control-loop Plant: 14 position servos in policy order,
 * an IMU (gyro, projected gravity, accelerometer) and joint state, stepped 4 × 5 ms per 20 ms period. It stands
 * in sim2d's living room laid out by sim2d's seed, and also tells what only a simulator knows:
 * the trunk's and the ball's poses, and whether the head camera sees the ball. The duck is
 * quackd's own (duck-mjcf.ts) or a model of the user's (`model`, the room put around it);
 * anatomy.ts says where each part the plant reads and drives is in either.
 *
 * Everything after `loadMujoco()` is synchronous and touches no main-thread API, so the control
 * worker can own a plant outright.
 */
import type { JointSpec, Plant, SensorFrame, TrunkPose } from '../../../control/plant.js';
import { BALL_RADIUS, cameraSeesBall, type Pose } from '../sim2d/arena.js';
import { layoutForSeed, type Sim2dLayout } from '../sim2d/sim2d-body.js';
import { cameraFrame, findAnatomy, opticalAxis, readAccel, readFeet, readGravity, readGyro, type Anatomy, type AnatomyNames, type Axis, type DuckModel } from './anatomy.js';
import { JOINT_MAX_VELOCITY } from './duck-spec.js';
import { eulerFromQuat, quatFromEuler, type Quat } from './pose.js';
import { ATTACHED_ROOM, ROOM_NAMES, livingRoomMjcf, roomFrameMjcf } from './room-mjcf.js';
import { lowestPoint } from './clearance.js';
import { proximityOf } from './proximity.js';
import { loadMujoco, type MjSim, type Mujoco } from './wasm.js';

export type { DuckModel };

export interface MujocoPlantOptions {
  /** sim2d's layout seed: where the duck stands, which way it faces, where the ball lies. */
  readonly seed: number;
  /** A layout of your own instead of the seed's (a test's scene, a ball placed for a kick). */
  readonly layout?: Sim2dLayout;
  /** Start the duck tilted, rad (e.g. to watch it fall); its lowest point is put on the floor. */
  readonly tilt?: { readonly roll?: number; readonly pitch?: number };
  /** Servo stiffness, N·m/rad (default duck-spec's SERVO.kp; a user's model keeps its own). */
  readonly kp?: number;
  /** A model of the user's (settings `mjcf`) instead of quackd's duck, the living room put around it. */
  readonly model?: DuckModel;
}

export interface Point3 {
  readonly x: number;
  readonly y: number;
  readonly z: number;
}

/** The camera sees nothing while it looks more than this far up or down (a duck on its back). */
const CAMERA_MAX_ELEVATION = Math.PI / 4;

export class MujocoPlant implements Plant {
  readonly joints: readonly JointSpec[];
  readonly layout: Sim2dLayout;
  readonly timestep: number;
  private readonly cameraAxis: Axis;
  private closed = false;
  /** Whether the twin has stepped since it was placed: its accelerometer reads nothing before. */
  private stepped = false;

  /** Use createMujocoPlant or openMujocoPlant; this takes a compiled living room and what is where in it. */
  constructor(
    /** The raw simulation, for measurements a tuning search or a test needs beyond the Plant. */
    readonly sim: MjSim,
    options: MujocoPlantOptions,
    private readonly ids: Anatomy,
  ) {
    this.timestep = sim.timestep;
    // Limits as compiled, which is what MuJoCo enforces (for quackd's duck, duck-spec's).
    this.joints = ids.joints.map((j) => ({ name: j.name, min: j.min, max: j.max, maxVelocity: JOINT_MAX_VELOCITY }));
    this.layout = options.layout ?? layoutForSeed(options.seed);
    this.place(options);
    this.cameraAxis = opticalAxis(sim, ids);
  }

  /** Home pose, then the seed's layout: duck turned to its heading, ball at its spot. */
  private place(options: MujocoPlantOptions): void {
    const { sim, ids, layout } = this;
    const home = ids.home;
    if ('key' in home) sim.resetToKey(home.key);
    else {
      sim.reset();
      ids.joints.forEach((j, i) => (sim.qpos()[j.qpos] = home.pose[i] ?? 0));
    }
    const qpos = sim.qpos();
    // The servos start holding the pose (a keyframe's ctrl may be missing or another).
    for (const j of ids.joints) sim.ctrl()[j.actuator] = qpos[j.qpos] ?? 0;
    const q = quatFromEuler({ roll: options.tilt?.roll ?? 0, pitch: options.tilt?.pitch ?? 0, yaw: layout.duck.heading });
    qpos[ids.freeQpos] = layout.duck.x;
    qpos[ids.freeQpos + 1] = layout.duck.y;
    qpos.set(q, ids.freeQpos + 3);
    qpos[ids.ballQpos] = layout.ball.x;
    qpos[ids.ballQpos + 1] = layout.ball.y;
    qpos[ids.ballQpos + 2] = BALL_RADIUS;
    sim.forward();
    // The duck is lowered or raised until its lowest point touches the floor (tilted, or a
    // user's model of any height), so it starts neither in the floor nor dropped.
    const drop = lowestPoint(sim, ids.trunk);
    sim.qpos()[ids.freeQpos + 2] = (sim.qpos()[ids.freeQpos + 2] ?? 0) - drop;
    sim.forward();
  }

  read(): SensorFrame | undefined {
    if (this.closed) return undefined;
    const { sim, ids } = this;
    const qpos = sim.qpos();
    const qvel = sim.qvel();
    const jointPos = Float64Array.from(ids.joints, (j) => qpos[j.qpos] ?? Number.NaN);
    const jointVel = Float64Array.from(ids.joints, (j) => qvel[j.dof] ?? Number.NaN);
    const gyro = readGyro(sim, ids);
    const gravity = readGravity(sim, ids);
    const accel = readAccel(sim, ids, this.stepped);
    const values = [...jointPos, ...jointVel, ...gyro, ...gravity, ...accel];
    if (!values.every(Number.isFinite)) return undefined;
    const trunk = this.trunk();
    let feet: readonly [boolean, boolean] | undefined;
    return {
      gyro,
      gravity,
      accel,
      // Read from the contact list only when asked (the Open Duck Mini v2's walk observes them),
      // within the tick, before the twin steps again: 16 µs a read no other policy needs.
      get feet() {
        return (feet ??= readFeet(sim, ids));
      },
      jointPos,
      jointVel,
      trunk,
      proximity: proximityOf(trunk),
    };
  }

  send(targets: Float64Array): void {
    if (this.closed) return;
    const joints = this.ids.joints;
    if (targets.length !== joints.length) throw new RangeError(`mujoco plant: ${targets.length} targets for ${joints.length} joints`);
    // Each joint's own servo, wherever the model declares it.
    const ctrl = this.sim.ctrl();
    joints.forEach((j, i) => (ctrl[j.actuator] = targets[i] ?? Number.NaN));
  }

  advance(periodS: number): void {
    if (this.closed) return;
    const steps = Math.round(periodS / this.timestep);
    if (!(steps >= 1)) throw new RangeError(`mujoco plant: a period of ${periodS} s is under one ${this.timestep} s step`);
    this.sim.step(steps);
    this.stepped = true;
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
   * projected on the floor), how high, and how far its axis tips down (the trunk's sway), or
   * undefined while it looks mostly up or down.
   */
  camera(): (Pose & { readonly z: number; readonly pitch: number }) | undefined {
    const { pos, mat } = cameraFrame(this.sim, this.ids.camera);
    const { col, sign } = this.cameraAxis;
    // The optical axis: one column of the frame's row-major rotation matrix (anatomy.ts).
    const [ax, ay, az] = [sign * (mat[col] ?? 0), sign * (mat[3 + col] ?? 0), sign * (mat[6 + col] ?? 0)];
    const elevation = Math.atan2(az, Math.hypot(ax, ay));
    if (Math.abs(elevation) > CAMERA_MAX_ELEVATION) return undefined;
    return { x: pos[0], y: pos[1], z: pos[2], heading: Math.atan2(ay, ax), pitch: -elevation };
  }

  /** sim2d's camera rule (field of view, range, the sofa hiding the ball) on the twin's poses. */
  seesBall(): { readonly bearing: number; readonly distance: number } | undefined {
    const camera = this.camera();
    return camera === undefined ? undefined : cameraSeesBall(camera, this.ball());
  }

  /** A shove: adds this world-frame velocity (m/s) to the trunk, as a push would. */
  push(velocity: Point3): void {
    const qvel = this.sim.qvel();
    const d = this.ids.freeDof;
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

/** quackd's own duck, as findAnatomy reads it. */
const OWN: AnatomyNames = { file: "quackd's duck", duck: {}, ball: { body: ROOM_NAMES.ball, freejoint: ROOM_NAMES.ballFree } };

function attachedNames(model: DuckModel): AnatomyNames {
  const p = ATTACHED_ROOM.prefix;
  return { file: model.mjcf, duck: model, ball: { body: `${p}${ROOM_NAMES.ball}`, freejoint: `${p}${ROOM_NAMES.ballFree}` } };
}

/** A user's servos at another stiffness: a position servo's gain kp and bias −kp·q. */
function stiffen(sim: MjSim, ids: Anatomy, kp: number): void {
  const [gain, bias] = [sim.actuatorGainPrm(), sim.actuatorBiasPrm()];
  for (const { actuator: a } of ids.joints) {
    gain[10 * a] = kp;
    bias[10 * a + 1] = -kp;
  }
}

/** A twin in sim2d's living room for this seed, from an already loaded MuJoCo. */
export function createMujocoPlant(mujoco: Mujoco, options: MujocoPlantOptions): MujocoPlant {
  const { model, kp } = options;
  const sim =
    model === undefined
      ? mujoco.compile(livingRoomMjcf(kp === undefined ? {} : { kp }))
      : mujoco.compileFile(model.mjcf, { mjcf: (hasFloor) => roomFrameMjcf({ floor: !hasFloor }), ...ATTACHED_ROOM });
  try {
    const ids = findAnatomy(sim, model === undefined ? OWN : attachedNames(model));
    if (model !== undefined && kp !== undefined) stiffen(sim, ids, kp);
    return new MujocoPlant(sim, options, ids);
  } catch (err) {
    sim.close();
    throw err;
  }
}

/** Loads MuJoCo in this thread (once) and makes a twin: the one await a control worker needs. */
export async function openMujocoPlant(options: MujocoPlantOptions): Promise<MujocoPlant> {
  return createMujocoPlant(await loadMujoco(), options);
}
