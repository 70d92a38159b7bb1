/**
 * Calibrating a servo-bus duck's joint offsets without moving it (`quackd calibrate`): torque off
 * on every servo (read back), the builder holds the duck in its home pose, every servo's position
 * is read, and each joint's offset becomes what makes that reading the home pose:
 * `offset = servo − direction × home`, the inverse of joint-table.ts's jointAngle(). The new
 * table is saved by the caller (the config file is not this room's), then the servos are read
 * again through it and each joint's distance from home is said.
 *
 * The reference runtime (apirrone/Open_Duck_Mini_Runtime, find_all_motor_offsets.py) drives the
 * duck to its zero pose first and takes what a person's hand moves it by; here nothing is ever
 * driven: the only write on the bus is torque off.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { RuntimeError } from '../../../errors.js';
import { BusLostError, SilentBusError } from '../../../servo-bus/errors.js';
import type { ProtocolName } from '../../../servo-bus/packet.js';
import { servoLabel, signedRad, type JointRow } from './joint-table.js';
import { DID_NOT_ANSWER, calibratedRows, otherDirectionOffset, poseErrors, untrustedReading, type ServoLook } from './servo-look.js';
import { ServoSurvey, type SurveyLink } from './survey.js';

export interface CalibrationSteps {
  /** The robot's name, as messages say it. */
  readonly robot: string;
  readonly protocol: ProtocolName;
  readonly link: SurveyLink;
  readonly joints: readonly JointRow[];
  /** The pose the duck is held in, rad per joint (standing-home.ts). */
  readonly home: readonly number[];
  /**
   * Torque reads on in `count` servos (a quackd killed while it held the duck): turning it off lets
   * a standing duck fall, so the builder holds it first; false stops here, nothing written at all.
   */
  readonly letGo: (count: number) => Promise<boolean>;
  /** Torque is off: the builder holds the duck in its home pose; false stops here (nothing saved). */
  readonly hold: () => Promise<boolean>;
  /** Writes the new table where the robot's settings live; resolves with the table as it now reads there. */
  readonly save: (rows: readonly JointRow[]) => Promise<{ readonly rows: readonly JointRow[]; readonly backup: string | undefined }>;
}

export interface JointCalibration {
  readonly joint: JointRow;
  readonly previous: number;
  /** The offset is large, and the other direction would make it small: is the direction right? (servo-look.ts) */
  readonly otherDirection: number | undefined;
  /** The pose error after calibration, read again through the saved offset (rad). */
  readonly error: number | undefined;
}

export type CalibrationResult = { readonly saved: false; readonly torque: 'off' | 'as it was' } | { readonly saved: true; readonly joints: readonly JointCalibration[]; readonly backup: string | undefined };

/**
 * Fails (a RuntimeError) before anything is saved when a servo cannot be read whole, or raises an
 * alarm: a servo whose angle sensor or load is in alarm reads a position no offset should come from.
 */
function positions(looks: readonly ServoLook[], protocol: ProtocolName, port: string, when: string): number[] {
  const problems = looks.map((l) => untrustedReading(l, protocol)).filter((p): p is string => p !== undefined);
  if (problems.length > 0) throw new RuntimeError(`calibrate: ${problems.join('; ')} on ${port} ${when}: nothing written, the config is as it was`, 'check its cable and power; quackd bus scan lists who answers and their alarms');
  return looks.map((l) => l.servoRad ?? 0);
}

const STILL_READS = 3;
const STILL_GAP_MS = 100;
const STILL_WITHIN_RAD = 0.02;

/**
 * The held pose is read three times over 0.2 s, and a joint that moved more than health's pose
 * tolerance meanwhile fails before anything is saved: a duck let go after `--yes` sinks as its
 * torque goes off, and an offset read on its way down would walk it crooked.
 */
async function heldStill(survey: ServoSurvey, steps: CalibrationSteps): Promise<number[]> {
  const { protocol, link, joints } = steps;
  const reads: number[][] = [];
  for (let i = 0; i < STILL_READS; i++) {
    if (i > 0) await sleep(STILL_GAP_MS);
    reads.push(positions(await survey.look(joints), protocol, link.port, 'while held'));
  }
  const moved = joints
    .map((joint, j) => ({ joint, by: Math.max(...reads.map((r) => r[j] ?? 0)) - Math.min(...reads.map((r) => r[j] ?? 0)) }))
    .filter((m) => m.by > STILL_WITHIN_RAD)
    .sort((a, b) => b.by - a.by);
  if (moved.length > 0) {
    const seconds = ((STILL_READS - 1) * STILL_GAP_MS) / 1000;
    const who = moved.map((m) => `${servoLabel(m.joint)} by ${m.by.toFixed(3)} rad`).join(', ');
    throw new RuntimeError(`calibrate: ${steps.robot} moved while it was read: ${who} in ${seconds.toFixed(1)} s: nothing written, the config is as it was`, 'hold it still in its home pose, then run quackd calibrate again');
  }
  return reads[reads.length - 1] ?? [];
}

export async function calibrate(steps: CalibrationSteps): Promise<CalibrationResult> {
  const { protocol, link, joints, home } = steps;
  const survey = await ServoSurvey.open(protocol, link);
  let saved: Awaited<ReturnType<CalibrationSteps['save']>> | undefined;
  try {
    // Every servo answers, is the right model and raises no alarm before anything is written, even torque off.
    const first = await survey.look(joints);
    // Fourteen "did not answer"s on one line would hide that the bus as a whole is silent.
    if (first.length > 0 && first.every((l) => l.problem === DID_NOT_ANSWER)) throw new SilentBusError(protocol, link.port, link.baud, joints.map((j) => j.id));
    positions(first, protocol, link.port, 'before torque off');
    const on = first.filter((l) => l.torque === true).length;
    if (on > 0 && !(await steps.letGo(on))) return { saved: false, torque: 'as it was' };
    const off = await survey.torqueOff(joints);
    if (off.stuck.length > 0 || off.silent.length > 0) {
      const parts = [...(off.stuck.length > 0 ? [`${off.stuck.join(', ')} still on`] : []), ...(off.silent.length > 0 ? [`${off.silent.join(', ')} did not answer`] : [])];
      throw new RuntimeError(`calibrate: torque off not confirmed: ${parts.join('; ')}: nothing written, the config is as it was`);
    }
    if (!(await steps.hold())) return { saved: false, torque: 'off' };
    const read = await heldStill(survey, steps);
    const rows = calibratedRows(joints, read, home);
    // The config refuses an offset past half a turn (joint-table.ts): saving one would lock the duck out of its next run.
    const past = rows.findIndex((row) => Math.abs(row.offset) > Math.PI);
    const row = rows[past];
    if (row !== undefined) {
      const flipped = row.offset + 2 * row.direction * (home[past] ?? 0);
      throw new RuntimeError(`calibrate: ${servoLabel(row)} reads ${signedRad(row.offset)} rad off its home angle, past half a turn, which no horn is: nothing written, the config is as it was`, `is its direction in joints: right? with direction ${-row.direction} it would be ${signedRad(flipped)}`);
    }
    saved = await steps.save(rows);
    const errors = poseErrors(await survey.look(saved.rows), home);
    return { saved: true, backup: saved.backup, joints: errors.map((e, i) => ({ joint: e.joint, previous: joints[i]?.offset ?? 0, error: e.error, otherDirection: otherDirectionOffset(e.joint, home[i] ?? 0) })) };
  } catch (err) {
    if (!(err instanceof BusLostError)) throw err;
    const after = saved !== undefined ? 'the offsets were written, not read back' : 'nothing written, the config is as it was';
    throw new RuntimeError(`calibrate: the bus adapter on ${link.port} was lost (${err.message}): ${after}`, 'is the adapter still plugged in?');
  } finally {
    await survey.close();
  }
}
