/**
 * The daemon's request and response shapes this body uses, as its source defines them
 * (pollen-robotics/reachy_mini, read at v1.9.0-78-g70a7c0b12, 2026-08-21: daemon/app/models.py,
 * routers/move.py, state.py, motors.py, daemon.py, media.py; io/protocol.py). Angles on the wire
 * are radians; head pose is x, y, z (m) and roll, pitch, yaw ("xyz" Euler angles, rad) with 0 the
 * neutral pose. Answers are checked here, so a daemon of another shape fails in one line.
 */
import { z } from 'zod';
import { DaemonError } from './client.js';

/** io/protocol.py's MotorControlMode. */
export const MOTOR_MODES = ['enabled', 'disabled', 'gravity_compensation'] as const;
export type MotorMode = (typeof MOTOR_MODES)[number];

/** models.py's XYZRPYPose (the default of `GET /api/state/full`, use_pose_matrix=false). */
const xyzrpyPose = z.object({ x: z.number(), y: z.number(), z: z.number(), roll: z.number(), pitch: z.number(), yaw: z.number() });

/** models.py's FullState, with the fields `GET /api/state/full` sends by default. */
export const fullState = z.object({
  control_mode: z.enum(MOTOR_MODES).nullish(),
  head_pose: xyzrpyPose.nullish(),
  body_yaw: z.number().nullish(),
  antennas_position: z.array(z.number()).nullish(),
});
export type FullState = z.infer<typeof fullState>;

/** io/protocol.py's DaemonStatus: what health and a run's start read of it. */
export const daemonStatus = z.object({
  robot_name: z.string(),
  state: z.enum(['not_initialized', 'starting', 'running', 'stopping', 'stopped', 'error']),
  simulation_enabled: z.boolean().nullish(),
  mockup_sim_enabled: z.boolean().nullish(),
  backend_status: z.object({ motor_control_mode: z.enum(MOTOR_MODES) }).loose().nullish(),
  error: z.string().nullish(),
  version: z.string().nullish(),
});
export type DaemonStatus = z.infer<typeof daemonStatus>;

/** routers/move.py's MoveUUID: `POST /api/move/goto` answers one; `GET /api/move/running` a list. */
export const moveUuid = z.object({ uuid: z.string() });
export const runningMoves = z.array(moveUuid);

/** routers/motors.py's MotorStatus. */
export const motorStatus = z.object({ mode: z.enum(MOTOR_MODES) });

/** routers/move.py's GotoModelRequest. */
export interface GotoRequest {
  readonly head_pose?: { readonly x: 0; readonly y: 0; readonly z: 0; readonly roll: number; readonly pitch: number; readonly yaw: number };
  /** (left, right), rad. */
  readonly antennas?: readonly [number, number];
  readonly body_yaw?: number;
  /** Seconds. */
  readonly duration: number;
  readonly interpolation?: 'linear' | 'minjerk' | 'ease_in_out' | 'cartoon';
}

/** `answer` as `schema` says, or a one-line DaemonError naming the route. */
export function parseAnswer<T>(schema: z.ZodType<T>, answer: unknown, route: string): T {
  const parsed = schema.safeParse(answer);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new DaemonError(`the Reachy Mini daemon answered ${route} in a shape this body does not know (${issue !== undefined ? `${issue.path.join('.') || 'answer'}: ${issue.message}` : 'unreadable'})`, 'http');
}

/** routers/media.py's media_status: whether the daemon's own pipeline holds the camera now. */
export const mediaStatus = z.object({ available: z.boolean(), released: z.boolean(), no_media: z.boolean() });
