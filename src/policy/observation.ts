/**
 * Observation builders: one sensor frame plus what the loop is asking for, flattened into the
 * float vector a policy was trained on. A wrong offset fails silently (a plausible robot that
 * falls over), so every layout is written out block by block in the order of its table
 * (../shared/sim-kit/README.md, and README.md beside this file for quackd-gait-1), and the tests
 * pin each index against vectors written by hand.
 *
 * The loop calls this 50 times a second: pass `out` to reuse one buffer instead of allocating.
 */
import type { SensorFrame } from '../control/plant.js';
import { OBS_LEN, type ObsLayout } from './layouts.js';
import { MICRODUCK_ACTIONS } from './microduck.js';
import { buildOpenDuckObservation } from './observation-open-duck.js';
import { need } from './vector-length.js';

/** The velocity command in the trunk frame: m/s forward and left, rad/s counter-clockwise. */
export interface Twist {
  readonly vx: number;
  readonly vy: number;
  readonly vyaw: number;
}

/** Head joint angles the 61-input policies take as a command (rad; not added to their output). */
export interface HeadCommand {
  readonly neckPitch: number;
  readonly headPitch: number;
  readonly headYaw: number;
  readonly headRoll: number;
}

/** The standing body pose asked for, as offsets from the nominal stance: m, rad. */
export interface BodyPoseCommand {
  readonly z: number;
  readonly roll: number;
  readonly pitch: number;
}

export interface ObservationInput {
  readonly frame: SensorFrame;
  /** The policy's home pose (PolicyManifest.home), 14 joints: positions are observed relative to it. */
  readonly home: ArrayLike<number>;
  /** The policy's previous raw output (before action_scale), 14 values; zeros before the first tick. */
  readonly lastAction: ArrayLike<number>;
  readonly command: Twist;
  /** Zero when absent. */
  readonly head?: HeadCommand;
  /** Zero (the nominal stance) when absent. */
  readonly body?: BodyPoseCommand;
  /** Gait or skill phase φ in cycles (quackd-gait-1): (t / command.period_s) mod 1; 0 when absent. */
  readonly phase?: number;
  /** open-duck-mini-v2: the two raw actions before lastAction, newest first; zeros when absent. */
  readonly pastActions?: readonly [ArrayLike<number>, ArrayLike<number>];
  /** open-duck-mini-v2: the motor targets the policy's last action gave (rad, 14); home when absent. */
  readonly lastTargets?: ArrayLike<number>;
  /** open-duck-mini-v2: the imitation phase as it observes it, [cos, sin] ([0, 0] on its first tick). */
  readonly imitationPhase?: readonly [number, number];
  /** open-duck-mini-v2: what joint velocities are multiplied by (manifest velocity_scale). */
  readonly velocityScale?: number;
}

/** The legacy body command's normalisers (microduck_runtime): z / 3 cm, angles / 30°. */
const BODY_Z_SCALE = 0.03;
const BODY_ANGLE_SCALE = 0.5236;

const ZERO_HEAD: HeadCommand = { neckPitch: 0, headPitch: 0, headYaw: 0, headRoll: 0 };
const ZERO_BODY: BodyPoseCommand = { z: 0, roll: 0, pitch: 0 };


/**
 * Fills `out` (or a new vector) with the observation `layout` describes. Throws RangeError on a
 * wrong-sized input: that is a bug in the caller, never something a person can cause.
 */
export function buildObservation(layout: ObsLayout, input: ObservationInput, out: Float32Array = new Float32Array(OBS_LEN[layout])): Float32Array {
  if (layout === 'open-duck-mini-v2') return buildOpenDuckObservation(input, out);
  const { frame, home, lastAction, command } = input;
  const n = MICRODUCK_ACTIONS;
  need('out', out, OBS_LEN[layout]);
  need('jointPos', frame.jointPos, n);
  need('jointVel', frame.jointVel, n);
  need('home', home, n);
  need('lastAction', lastAction, n);

  // 0..48: the part every Microduck layout shares.
  out[0] = frame.gyro[0];
  out[1] = frame.gyro[1];
  out[2] = frame.gyro[2];
  out[3] = frame.gravity[0];
  out[4] = frame.gravity[1];
  out[5] = frame.gravity[2];
  for (let i = 0; i < n; i++) {
    out[6 + i] = (frame.jointPos[i] ?? 0) - (home[i] ?? 0);
    out[20 + i] = frame.jointVel[i] ?? 0;
    out[34 + i] = lastAction[i] ?? 0;
  }

  // 48..51: the command slot.
  if (layout === 'microduck-51-body') {
    // The legacy standing policies read the body pose here, normalised, in the order z, pitch, roll.
    const body = input.body ?? ZERO_BODY;
    out[48] = body.z / BODY_Z_SCALE;
    out[49] = body.pitch / BODY_ANGLE_SCALE;
    out[50] = body.roll / BODY_ANGLE_SCALE;
  } else {
    out[48] = command.vx;
    out[49] = command.vy;
    out[50] = command.vyaw;
  }

  if (layout === 'microduck-61') {
    const head = input.head ?? ZERO_HEAD;
    const body = input.body ?? ZERO_BODY;
    out[51] = head.neckPitch;
    out[52] = head.headPitch;
    out[53] = head.headYaw;
    out[54] = head.headRoll;
    // Body x, y and yaw are unbound in training: zero is the nominal encoding. Order z, roll, pitch.
    out[55] = 0;
    out[56] = 0;
    out[57] = body.z;
    out[58] = body.roll;
    out[59] = body.pitch;
    out[60] = 0;
  } else if (layout === 'quackd-gait-1') {
    const angle = 2 * Math.PI * (input.phase ?? 0);
    out[51] = Math.cos(angle);
    out[52] = Math.sin(angle);
  }
  return out;
}
