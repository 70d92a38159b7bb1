/**
 * The far end of a control loop: the physics twin (microduck:mujoco) or the real duck's bridge
 * (microduck:jsonrpc). A plant lives inside the control worker, next to the loop that drives it,
 * so nothing on the main thread stands between a tick and the joints.
 *
 * Joint order is the Microduck policy order (../shared/sim-kit): 0 left_hip_yaw, 1 left_hip_roll,
 * 2 left_hip_pitch, 3 left_knee, 4 left_ankle, 5 neck_pitch, 6 head_pitch, 7 head_yaw, 8 head_roll,
 * 9 right_hip_yaw, 10 right_hip_roll, 11 right_hip_pitch, 12 right_knee, 13 right_ankle.
 */

import type { Json } from './module-spec.js';

/** One joint as the body announces it: the safety stage clamps to these. */
export interface JointSpec {
  readonly name: string;
  /** rad */
  readonly min: number;
  /** rad */
  readonly max: number;
  /** The fastest the joint can move, rad/s: no target may jump further than this × one period. */
  readonly maxVelocity: number;
}

/** Where the trunk is, when the plant can tell (the twin knows; a real duck integrates odometry). */
export interface TrunkPose {
  /** m, world frame */
  readonly x: number;
  readonly y: number;
  readonly z: number;
  /** rad */
  readonly roll: number;
  readonly pitch: number;
  readonly yaw: number;
}

/** One sensor reading, in policy joint order. */
export interface SensorFrame {
  /** Angular velocity of the trunk, trunk frame, rad/s. */
  readonly gyro: readonly [number, number, number];
  /** Gravity projected into the trunk frame, a unit vector (upright ≈ (0, 0, -1)). */
  readonly gravity: readonly [number, number, number];
  /**
   * What the trunk's accelerometer reads, trunk frame, m/s²: the specific force, so a duck standing
   * still reads about (0, 0, +9.81). Where the plant has one (the BNO055, the twin's sensor); the
   * Open Duck Mini v2's walk policies observe it instead of gravity.
   */
  readonly accel?: readonly [number, number, number];
  /**
   * Whether each foot, left then right, touches the floor, where the plant can tell: the twin's
   * contacts (a duck's foot switches are not read yet). The Open Duck Mini v2's walk observes them.
   */
  readonly feet?: readonly [boolean, boolean];
  /** rad, one per joint. */
  readonly jointPos: Float64Array;
  /** rad/s, one per joint. */
  readonly jointVel: Float64Array;
  readonly trunk?: TrunkPose;
  /**
   * What stands within stopping distance of the trunk, ahead and behind ('wall', 'sofa' …; null:
   * clear), when the plant can tell (the twin knows its room; a real duck would need a range
   * sensor). A walk ends when its way is blocked rather than walking the duck into it.
   */
  readonly proximity?: Proximity;
  /**
   * Torque has just come on with the servos holding where the joints stand (after being off, when
   * hands may have moved them): the loop holds this pose from now on. Holding its old targets
   * instead would drive the duck back, at once, to where it stood before it was let go.
   */
  readonly torqueOnHere?: true;
}

export interface Proximity {
  readonly ahead: string | null;
  readonly behind: string | null;
}

export interface Plant {
  readonly joints: readonly JointSpec[];
  /**
   * Servos that hold their last goal by themselves, and a plant that reads them no oftener than
   * this while nothing moves, ms: a loop holding with nothing to run ticks it this often (it
   * rests), and at its full rate again as soon as a verb, an idle skill or a tilt needs it.
   * Absent: the loop ticks at its full rate always (a simulated world steps in advance()).
   */
  readonly restingPeriodMs?: number;
  /** This tick's reading; undefined when the read failed (the loop then runs no policy this tick). */
  read(): SensorFrame | undefined;
  /** Joint targets, rad, one per joint. Only the safety stage (src/control/safety.ts) calls this. */
  send(targets: Float64Array): void;
  /**
   * A simulated plant advances its world by one control period here (physics steps); a real one
   * leaves it out: its time passes by itself.
   */
  advance?(periodS: number): void;
  /**
   * Torque off: the joints go limp. The safe state after a fall when the loop is set to go limp;
   * a plant without it is held instead. Only the safety stage calls this.
   */
  limp?(): void;
  /**
   * What the body reports to its pilot beyond the loop's sensors, as data (the twin: where the
   * trunk and the ball are, what the camera sees). Asked between ticks, never during one.
   */
  sense?(): Json;
  /**
   * Lets go of the hardware (torque off where the body does it here, the port and its lock).
   * The worker waits for it before it says it is closed and is ended: a close cut short by the
   * thread's end could leave the port locked to a process that goes on (a service opening the
   * robot again) and a last torque-off unsent.
   */
  close?(): void | Promise<void>;
}
