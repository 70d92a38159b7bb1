/**
 * A robot's status as a dashboard shows it (the status board in src/service keeps it, the bus's
 * `robot:status` event carries it). It sits below both, importing only body keys and run outcomes,
 * so the event bus a body imports reaches nothing of the service or the pilot.
 */
import type { BodyKey } from '../bodies/body.js';
import type { Outcome } from '../transcript/events.js';

export type RobotActivity = 'idle' | 'running' | 'stopping' | 'fallen' | 'offline';

/** One robot as a dashboard shows it; every field is what the service last heard, never polled. */
export interface RobotStatus {
  readonly robot: string;
  readonly key: BodyKey;
  readonly activity: RobotActivity;
  /** The run under way: its id, duck, the step it is on, when it started (ISO). */
  readonly run?: { readonly runId: string; readonly duck: string; readonly step: number; readonly startedAt: string };
  /** A confirmation gate waiting for a person: the step line it asks about, since when (ISO). */
  readonly gate?: { readonly question: string; readonly verb: string; readonly since: string };
  readonly lastOutcome?: Outcome & { readonly runId: string; readonly duck: string; readonly endedAt: string };
  /** The control loop's last published health, for bodies that have one; `scheduling`: what its thread runs under (`SCHED_FIFO 10`, or `normal (why)`). */
  readonly loop?: { readonly hz: number; readonly periodMs: number; readonly missed: number; readonly overruns: number; readonly state: string; readonly scheduling: string };
  /** The duck is down: when it fell (ISO) and how far it tilted, in a verb, its settle or between verbs; gone once it stands again. */
  readonly fell?: { readonly at: string; readonly tilt_deg: number };
  /** What the body last reported of itself (battery, torque, link), when it reports such things. */
  readonly battery_v?: number;
  readonly torque?: boolean;
  readonly link?: 'ok' | 'lost';
}
