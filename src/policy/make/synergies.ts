/**
 * Leg space → joint space. The bundled graphs think in four motions of one leg, each a fixed
 * direction in the 14 joint angles (a row of joint offsets per unit):
 *   crouch: hip pitch +a, knee −2a, ankle +a on the left (mirrored on the right, as the legacy
 *           home pose 0.6, −1.2, 0.6 / −0.6, 1.2, −0.6 is): the foot rises and stays flat;
 *   swing:  hip pitch and ankle opposite: the foot moves forward and stays flat;
 *   roll:   hip roll: the foot moves sideways;
 *   yaw:    hip yaw: the toe turns.
 * The signs that depend on the MJCF's joint axes come from SignParams.
 */
import { J, MICRODUCK_ACTIONS } from '../microduck.js';
import type { SignParams } from './param-types.js';

export type Side = 'left' | 'right';

/** A row of 14 joint offsets. */
export type JointRow = number[];

export const zeroRow = (): JointRow => new Array<number>(MICRODUCK_ACTIONS).fill(0);

/** The crouch direction of each leg's hip pitch, read off the legacy home pose. */
const CROUCH: Readonly<Record<Side, number>> = { left: 1, right: -1 };

const joints = (side: Side) =>
  side === 'left'
    ? { yaw: J.left_hip_yaw, roll: J.left_hip_roll, hip: J.left_hip_pitch, knee: J.left_knee, ankle: J.left_ankle }
    : { yaw: J.right_hip_yaw, roll: J.right_hip_roll, hip: J.right_hip_pitch, knee: J.right_knee, ankle: J.right_ankle };

function add(row: JointRow, index: number, value: number): void {
  row[index] = (row[index] ?? 0) + value;
}

export class Synergies {
  constructor(private readonly signs: SignParams) {}

  /** Adds `amount` crouch units of `side` to `row`. */
  crouch(row: JointRow, side: Side, amount: number): JointRow {
    const j = joints(side);
    const d = CROUCH[side];
    add(row, j.hip, d * amount);
    add(row, j.knee, -2 * d * amount);
    add(row, j.ankle, d * amount);
    return row;
  }

  /** Adds `amount` swing units (+ foot forward) of `side`. */
  swing(row: JointRow, side: Side, amount: number): JointRow {
    const j = joints(side);
    const d = CROUCH[side] * this.signs.hipPitchForward;
    add(row, j.hip, d * amount);
    add(row, j.ankle, -d * amount);
    return row;
  }

  /** Adds ankle toe-down (+) of `side`, alone (the balance's ankle strategy). */
  toeDown(row: JointRow, side: Side, amount: number): JointRow {
    add(row, joints(side).ankle, -CROUCH[side] * this.signs.hipPitchForward * amount);
    return row;
  }

  /** Adds knee extension (+ straighter) of `side`, in rad of knee. */
  kneeExtend(row: JointRow, side: Side, amount: number): JointRow {
    add(row, joints(side).knee, CROUCH[side] * amount);
    return row;
  }

  /** Adds hip roll moving the foot of `side` to the robot's left (+y). */
  roll(row: JointRow, side: Side, amount: number): JointRow {
    add(row, joints(side).roll, (side === 'left' ? this.signs.hipRollLeft : this.signs.hipRollRight) * amount);
    return row;
  }

  /** Adds hip yaw turning the toe of `side` to the left. */
  yaw(row: JointRow, side: Side, amount: number): JointRow {
    add(row, joints(side).yaw, (side === 'left' ? this.signs.hipYawLeft : this.signs.hipYawRight) * amount);
    return row;
  }
}
