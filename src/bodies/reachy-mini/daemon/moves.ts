/**
 * Moving Reachy Mini through its daemon: a `POST /api/move/goto` (which answers a move's uuid at
 * once and runs the move in the background) followed until `GET /api/move/running` no longer
 * lists it, so a verb ends when the robot got there. Degrees here, radians on the wire.
 */
import { rad } from '../../microduck/sim2d/arena.js';
import type { HeadPose } from '../mock/limits.js';
import { DaemonError, type DaemonClient } from './client.js';
import { moveUuid, parseAnswer, runningMoves, type GotoRequest } from './wire.js';

/** Degrees a second a move is given (min-jerk, so its peak speed is about twice this). */
const SPEED_DEG_S = 60;
const MIN_S = 0.4;
const MAX_S = 3;
/** How often a running move is asked after. */
const POLL_MS = 100;

export interface GotoTarget {
  readonly head?: HeadPose;
  readonly bodyYaw?: number;
  /** Degrees, left and right. */
  readonly antennas?: readonly [number, number];
}

/** Seconds for a move of `degrees` at the pace above. */
export function moveSeconds(degrees: number): number {
  return Math.min(MAX_S, Math.max(MIN_S, Math.abs(degrees) / SPEED_DEG_S));
}

export function gotoRequest(target: GotoTarget, seconds: number): GotoRequest {
  return {
    ...(target.head !== undefined ? { head_pose: { x: 0, y: 0, z: 0, roll: rad(target.head.roll), pitch: rad(target.head.pitch), yaw: rad(target.head.yaw) } } : {}),
    ...(target.antennas !== undefined ? { antennas: [rad(target.antennas[0]), rad(target.antennas[1])] as const } : {}),
    ...(target.bodyYaw !== undefined ? { body_yaw: rad(target.bodyYaw) } : {}),
    duration: seconds,
    interpolation: 'minjerk',
  };
}

/** Its abort listener goes with it, however it ends: a move polls many times on one run's signal. */
const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

/** Asks for the move and waits until the daemon has finished it (or `signal` stops the wait). */
export async function goto(client: DaemonClient, target: GotoTarget, seconds: number, signal?: AbortSignal): Promise<void> {
  const { uuid } = parseAnswer(moveUuid, await client.post('/api/move/goto', gotoRequest(target, seconds), signal), 'POST /api/move/goto');
  // The move's own time, and the timeout's worth of slack for a daemon that is slow to say so.
  const deadline = Date.now() + seconds * 1000 + client.timeoutMs;
  while (signal?.aborted !== true) {
    const running = parseAnswer(runningMoves, await client.get('/api/move/running', signal), 'GET /api/move/running');
    if (!running.some((m) => m.uuid === uuid)) return;
    if (Date.now() > deadline) throw new DaemonError(`the Reachy Mini daemon's move ${uuid} was still running ${Math.round(seconds + client.timeoutMs / 1000)} s after it began (a ${seconds.toFixed(1)} s move)`, 'timeout');
    await sleep(POLL_MS, signal);
  }
}

/** Stops every move the daemon is running (Ctrl-C, a budget's end). */
export async function stopMoves(client: DaemonClient): Promise<void> {
  const running = parseAnswer(runningMoves, await client.get('/api/move/running'), 'GET /api/move/running');
  for (const move of running) await client.post('/api/move/stop', { uuid: move.uuid });
}
