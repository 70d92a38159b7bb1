/**
 * The Open Duck Mini v2 reference walk's observation (layout open-duck-mini-v2, 101 floats), block
 * by block as its runtime builds it (Open_Duck_Mini_Runtime scripts/v2_rl_walk_mujoco.py, get_obs;
 * Open_Duck_Playground's joystick.py trains on the same blocks):
 *
 *    0..3    gyro, rad/s
 *    3..6    accelerometer, m/s² (a duck standing still reads about (0, 0, +9.81))
 *    6..13   command: vx, vy, vyaw, then neck pitch, head pitch, head yaw, head roll
 *   13..27   joint positions − home
 *   27..41   joint velocities × velocity_scale (the reference's dof_vel_scale, 0.05)
 *   41..83   the last three raw actions, newest first
 *   83..97   the last motor targets (home + action_scale × the last action)
 *   97..99   the two foot contacts, left then right (1 touching): the frame's `feet` where the plant
 *            tells them (the twin), else zeros, what the reference reads on a duck without foot switches
 *   99..101  the imitation phase, [cos, sin] (imitation-phase.ts)
 */
import { OBS_LEN } from './layouts.js';
import { MICRODUCK_ACTIONS } from './microduck.js';
import type { ObservationInput } from './observation.js';
import { need } from './vector-length.js';

/** The reference runtime's dof_vel_scale. */
export const OPEN_DUCK_VELOCITY_SCALE = 0.05;

export function buildOpenDuckObservation(input: ObservationInput, out: Float32Array): Float32Array {
  const { frame, home, lastAction, command } = input;
  const n = MICRODUCK_ACTIONS;
  need('out', out, OBS_LEN['open-duck-mini-v2']);
  need('jointPos', frame.jointPos, n);
  need('jointVel', frame.jointVel, n);
  need('home', home, n);
  need('lastAction', lastAction, n);
  const accel = frame.accel;
  if (accel === undefined) throw new RangeError('observation: open-duck-mini-v2 observes the accelerometer and this frame has none');
  const [before, beforeThat] = input.pastActions ?? [undefined, undefined];
  if (before !== undefined) need('pastActions[0]', before, n);
  if (beforeThat !== undefined) need('pastActions[1]', beforeThat, n);
  if (input.lastTargets !== undefined) need('lastTargets', input.lastTargets, n);
  const scale = input.velocityScale ?? OPEN_DUCK_VELOCITY_SCALE;

  for (let i = 0; i < 3; i++) {
    out[i] = frame.gyro[i] ?? 0;
    out[3 + i] = accel[i] ?? 0;
  }
  const head = input.head;
  out[6] = command.vx;
  out[7] = command.vy;
  out[8] = command.vyaw;
  out[9] = head?.neckPitch ?? 0;
  out[10] = head?.headPitch ?? 0;
  out[11] = head?.headYaw ?? 0;
  out[12] = head?.headRoll ?? 0;
  for (let i = 0; i < n; i++) {
    out[13 + i] = (frame.jointPos[i] ?? 0) - (home[i] ?? 0);
    out[27 + i] = (frame.jointVel[i] ?? 0) * scale;
    out[41 + i] = lastAction[i] ?? 0;
    out[55 + i] = before?.[i] ?? 0;
    out[69 + i] = beforeThat?.[i] ?? 0;
    out[83 + i] = input.lastTargets?.[i] ?? home[i] ?? 0;
  }
  out[97] = frame.feet?.[0] === true ? 1 : 0;
  out[98] = frame.feet?.[1] === true ? 1 : 0;
  const phase = input.imitationPhase ?? [0, 0];
  out[99] = phase[0];
  out[100] = phase[1];
  return out;
}
