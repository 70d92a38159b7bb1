/**
 * `<base>/bridge/event`: what happened to the fleet, in zigbee2mqtt's shape `{"type": …, "data":
 * {…}}`, for a dashboard that watches one topic instead of every robot's: `robot_joined` and
 * `robot_left` when a robot comes online or goes offline (its link opened, lost or closed; as
 * zigbee2mqtt's device_joined and device_leave), `run_started` and `run_ended` for every robot.
 * Not retained. A run's steps and gates stay on `<base>/<robot>/event`.
 */
import type { BodyKey } from '../bodies/body.js';
import type { RuntimeEvents } from '../runtime/events.js';

export type BridgeEvent =
  | { readonly type: 'robot_joined' | 'robot_left'; readonly data: { readonly robot: string; readonly body: BodyKey } }
  | { readonly type: 'run_started'; readonly data: { readonly robot: string; readonly body: BodyKey; readonly runId: string; readonly duck: string } }
  | { readonly type: 'run_ended'; readonly data: { readonly robot: string; readonly body: BodyKey; readonly runId: string; readonly outcome: string; readonly reason: string } };

export function runStarted(e: RuntimeEvents['run:start']): BridgeEvent {
  return { type: 'run_started', data: { robot: e.robot, body: e.key, runId: e.runId, duck: e.duck } };
}

export function runEnded(e: RuntimeEvents['run:end']): BridgeEvent {
  return { type: 'run_ended', data: { robot: e.robot, body: e.key, runId: e.runId, outcome: e.outcome.status, reason: e.outcome.reason } };
}

/**
 * Each robot's availability as last published: a change is a robot joining or leaving. Robots
 * known when the door starts are where they are (no event); one that turns up later and online
 * has joined.
 */
export class Availability {
  private readonly online = new Map<string, boolean>();

  /** Records where `robot` is without an event (the fleet as the door found it). */
  know(robot: string, online: boolean): void {
    this.online.set(robot, online);
  }

  /** The event that `robot` being `online` now is, if any. */
  change(robot: string, body: BodyKey, online: boolean): BridgeEvent | undefined {
    const was = this.online.get(robot);
    this.online.set(robot, online);
    if (was === online || (was === undefined && !online)) return undefined;
    return { type: online ? 'robot_joined' : 'robot_left', data: { robot, body } };
  }
}
