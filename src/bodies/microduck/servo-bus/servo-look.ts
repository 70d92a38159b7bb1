/**
 * What a look at a duck's servos found (ServoLook, filled by survey.ts) and the pose arithmetic
 * on it that calibrate and health share: each joint's offset that makes a reading the home pose,
 * and how far each joint reads from home through the offsets. Pure: no port, no serialport, so
 * `quackd health` loads it for every bus robot without opening anything.
 */
import type { ProtocolName } from '../../../servo-bus/packet.js';
import { BUS_SERVO_MODEL, jointAngle, servoLabel, type JointRow } from './joint-table.js';

/** A look's problem when the servo stayed silent (not garbled, not refused). */
export const DID_NOT_ANSWER = 'did not answer';

export interface ServoLook {
  readonly joint: JointRow;
  /** Why the servo could not be read (`did not answer`), or undefined. */
  readonly problem?: string;
  /** Its model number, and name when quackd's tables know it. */
  readonly model?: { readonly number: number; readonly name: string | undefined };
  /** It is the model the body drives (BUS_SERVO_MODEL): only then are the registers below read. */
  readonly expected: boolean;
  readonly torque?: boolean;
  /** Present position, rad from the servo's centre (the joint table's `servo` angle). */
  readonly servoRad?: number;
  readonly voltage?: number;
  readonly temperature?: number;
  /** The servo's own limits, as its EEPROM holds them (V, °C). */
  readonly limits?: { readonly minVoltage: number; readonly maxVoltage: number; readonly temperature: number };
  /** Alarm bits its replies carried (overload, overheat…), in words. */
  readonly alarms: readonly string[];
}

/** `left_knee (servo 23) did not answer`, or the model it turned out to be; undefined for a servo read whole. */
export function lookProblem(look: ServoLook, protocol: ProtocolName): string | undefined {
  if (look.problem !== undefined) return `${servoLabel(look.joint)} ${look.problem}`;
  if (!look.expected) return `${servoLabel(look.joint)} is ${look.model?.name ?? `model ${look.model?.number ?? '?'}`}, not the ${BUS_SERVO_MODEL[protocol]} the joint table drives`;
  return undefined;
}

/** lookProblem, or the alarm its replies carried (`left_knee (servo 23) raised angle sensor`): a reading not to calibrate from. */
export function untrustedReading(look: ServoLook, protocol: ProtocolName): string | undefined {
  return lookProblem(look, protocol) ?? (look.alarms.length > 0 ? `${servoLabel(look.joint)} raised ${look.alarms.join(', ')}` : undefined);
}

/** Offsets are written to 0.1 mrad: a tenth of an STS3215's count (1.5 mrad), short in the file. */
const round4 = (x: number): number => Math.round(x * 1e4) / 1e4 || 0;

/** Each joint's offset that makes `servoRad` read as `target` (the home pose, rad). */
export function calibratedRows(joints: readonly JointRow[], servoRad: readonly number[], target: readonly number[]): JointRow[] {
  return joints.map((j, i) => ({ ...j, offset: round4((servoRad[i] ?? 0) - j.direction * (target[i] ?? 0)) }));
}

export interface JointError {
  readonly joint: JointRow;
  /** Joint angle read minus home, rad; undefined when the servo could not be read. */
  readonly error: number | undefined;
}

/** How far each joint reads from `target` through the table's offsets. */
export function poseErrors(looks: readonly ServoLook[], target: readonly number[]): JointError[] {
  return looks.map((l, i) => ({ joint: l.joint, error: l.servoRad !== undefined ? jointAngle(l.joint, l.servoRad) - (target[i] ?? 0) : undefined }));
}

/**
 * Past this an offset is more than a horn set a few spline teeth off (an STS3215's 25-tooth spline
 * is 0.25 rad a tooth; the Open Duck Mini's build centres each servo before its horn goes on).
 */
export const LARGE_OFFSET_RAD = 0.5;

/**
 * For an offset past LARGE_OFFSET_RAD: the offset the other direction would give, when that one
 * is small. A joint whose servo turns the other way than the table says reads home mirrored,
 * and its offset takes twice the home angle: a walk would then drive it the wrong way.
 */
export function otherDirectionOffset(row: JointRow, target: number): number | undefined {
  if (Math.abs(row.offset) <= LARGE_OFFSET_RAD) return undefined;
  const flipped = round4(row.offset + 2 * row.direction * target);
  return Math.abs(flipped) <= LARGE_OFFSET_RAD ? flipped : undefined;
}
