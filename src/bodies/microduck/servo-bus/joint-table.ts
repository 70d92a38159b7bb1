/**
 * Which servo drives which policy joint on a duck whose Pi drives the bus itself, and how: its
 * id, its direction (+1, or −1 where the horn is mounted the other way), its offset (the servo's
 * reading, rad, when the joint stands at the policy's zero) and its limits (rad). One row per
 * policy joint, in the policy order (src/control/plant.ts).
 *
 * The Feetech default is the Open Duck Mini v2 as built (apirrone/Open_Duck_Mini_Runtime,
 * mini_bdx_runtime/rustypot_position_hwi.py): ids 20–24 left leg, 30–33 neck and head, 10–14
 * right leg, in exactly this order; every direction +1 (the runtime sends the policy's radians
 * as they are); offsets 0 until calibrated (the runtime reads them from duck_config.json's
 * `joints_offset`). The Dynamixel default keeps the same ids (the XL330 ducks of the same line,
 * scripts of that runtime). Limits are the twin's (mujoco/duck-spec.ts), which the policies
 * were trained with.
 */
import * as z from '../../../zod-mini.js';
import type { ProtocolName } from '../../../servo-bus/packet.js';
import { DUCK_JOINTS } from '../mujoco/duck-spec.js';

export interface JointRow {
  readonly name: string;
  readonly id: number;
  readonly direction: 1 | -1;
  /** rad: what the servo reads when the joint is at the policy's zero. */
  readonly offset: number;
  readonly min: number;
  readonly max: number;
}

export const JointRowSchema = z
  .strictObject({
    name: z.string().check(z.minLength(1)),
    id: z.int().check(z.minimum(0), z.maximum(252)),
    // zod's own word for a union is "Invalid input", which does not say what a direction is.
    direction: z._default(z.union([z.literal(1), z.literal(-1)], { error: (issue) => `a direction is 1 or -1 (-1 where the horn is mounted the other way), not ${JSON.stringify(issue.input)}` }), 1),
    // A servo reads within half a turn of its centre: an offset past that is a typo (3.5 for 0.35), never a horn.
    offset: z._default(z.number().check(z.refine((v) => Math.abs(v) <= Math.PI, { error: (issue) => `${String(issue.input)} rad is past half a turn, which no servo reads (±3.1416): a typo? set it to 0 and let quackd calibrate measure it` })), 0),
    min: z.number(),
    max: z.number(),
  })
  .check(z.refine((j) => j.min < j.max, { message: 'min must be below max' }));

/** The Open Duck Mini v2's servo ids, in the policy order (rustypot_position_hwi.py `self.joints`). */
const OPEN_DUCK_MINI_IDS: Readonly<Record<string, number>> = {
  left_hip_yaw: 20,
  left_hip_roll: 21,
  left_hip_pitch: 22,
  left_knee: 23,
  left_ankle: 24,
  neck_pitch: 30,
  head_pitch: 31,
  head_yaw: 32,
  head_roll: 33,
  right_hip_yaw: 10,
  right_hip_roll: 11,
  right_hip_pitch: 12,
  right_knee: 13,
  right_ankle: 14,
};

export const OPEN_DUCK_MINI_V2: readonly JointRow[] = DUCK_JOINTS.map((j) => ({ name: j.name, id: OPEN_DUCK_MINI_IDS[j.name] ?? 0, direction: 1, offset: 0, min: j.range[0], max: j.range[1] }));

/**
 * The reference runtime's gains, for the README and the servos' own registers: kp 32, kd 0 on
 * every STS3215 (rustypot_position_hwi.py), its control loop at 50 Hz (v2_rl_walk_mujoco.py).
 * quackd leaves the servos' P and D as they are set: it writes positions only.
 */
export const REFERENCE_GAINS = { kp: 32, kd: 0, hz: 50 } as const;

/** A joint table's problem in one line (two joints on one id), or undefined. */
export function jointTableProblem(rows: readonly JointRow[]): string | undefined {
  if (rows.length !== DUCK_JOINTS.length) return `the joint table needs ${DUCK_JOINTS.length} joints in the policy order, has ${rows.length}`;
  const seen = new Map<number, string>();
  for (const [i, row] of rows.entries()) {
    const want = DUCK_JOINTS[i]?.name;
    if (row.name !== want) return `joint ${i + 1} must be ${want ?? '?'} (the policy order), is ${row.name}`;
    const other = seen.get(row.id);
    if (other !== undefined) return `${row.name} and ${other} are both on servo ${row.id}`;
    seen.set(row.id, row.name);
  }
  return undefined;
}

/** Servo position (rad, 0 at the servo's centre) for a joint angle, and back. */
export const servoAngle = (j: JointRow, joint: number): number => j.direction * joint + j.offset;
export const jointAngle = (j: JointRow, servo: number): number => j.direction * (servo - j.offset);

/** `left_knee (servo 23)`: how a joint's servo is named in every message. */
export const servoLabel = (j: JointRow): string => `${j.name} (servo ${j.id})`;

/** The servo each protocol's ducks are built with: the Open Duck Mini v2's STS3215, the XL330 ducks'. */
export const BUS_SERVO_MODEL = { feetech: 'STS3215', dynamixel: 'XL330-M288' } as const satisfies Record<ProtocolName, string>;

/** A joint's angle in rad as calibrate prints it: a sign always, four decimals. */
export const signedRad = (x: number): string => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(4)}`;
