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
  /** The run under way: its id, duck, the step it is on, when it started (ISO), who asked for it (`mcp session 3f2a1b9c (claude-ai 0.1.0)`). */
  readonly run?: { readonly runId: string; readonly duck: string; readonly step: number; readonly startedAt: string; readonly by?: string };
  /** A confirmation gate waiting for a person: the step line it asks about, since when (ISO). */
  readonly gate?: { readonly question: string; readonly verb: string; readonly since: string };
  readonly lastOutcome?: Outcome & { readonly runId: string; readonly duck: string; readonly endedAt: string };
  /** The control loop's last published health, for bodies that have one; `scheduling`: what its thread runs under (`SCHED_FIFO 10`, or `normal (why)`). */
  readonly loop?: { readonly hz: number; readonly periodMs: number; readonly restingMs?: number; readonly missed: number; readonly overruns: number; readonly state: string; readonly scheduling: string };
  /** The duck is down: when it fell (ISO) and how far it tilted, in a verb, its settle or between verbs; gone once it stands again. */
  readonly fell?: { readonly at: string; readonly tilt_deg: number };
  /** What the body last reported of itself (battery, torque, link), when it reports such things. */
  readonly battery_v?: number;
  /** The battery's charge, 0-100 %, as the body reads it from its voltage. */
  readonly battery_pct?: number;
  /**
   * Whether the joints hold torque, as the firmware last said; null (unknown) from the moment the
   * link is lost until the firmware says again (its watchdog may well have cut it meanwhile).
   */
  readonly torque?: boolean | null;
  readonly link?: 'ok' | 'lost';
  /** Why its link is lost, in one line, where the service knows (a daemon not answering at its URL). */
  readonly away?: string;
}

/** What a body last said of itself, in words: `battery 7.92 V`, `torque on`, `link ok` (status, MCP). */
export function bodyFacts(s: RobotStatus): string[] {
  const torque = s.torque === null ? 'torque unknown' : s.torque !== undefined ? `torque ${s.torque ? 'on' : 'off'}` : undefined;
  return [s.battery_v !== undefined ? `battery ${s.battery_v.toFixed(2)} V` : undefined, torque, s.link !== undefined ? `link ${s.link}` : undefined].filter((x) => x !== undefined);
}

/**
 * Held and within reach: not offline, its link not lost. A run tried on a robot whose link is down
 * (it fails at once) does not bring it back, to a dashboard (MQTT availability) or to health.
 */
export const reachable = (status: Pick<RobotStatus, 'activity' | 'link'>): boolean => status.activity !== 'offline' && status.link !== 'lost';

type LoopFigures = NonNullable<RobotStatus['loop']>;

/** The rate a loop should keep now, Hz: its full rate, or its resting one while it rests. */
export const loopTargetHz = (loop: Pick<LoopFigures, 'periodMs' | 'restingMs'>): number => 1000 / (loop.restingMs ?? loop.periodMs);

/** `49.9 of 50 Hz`, or resting `10.0 of 10 Hz, resting (50 when moving)` (status, health). */
export function loopRateText(loop: Pick<LoopFigures, 'hz' | 'periodMs' | 'restingMs'>): string {
  const full = Math.round(1000 / loop.periodMs);
  const rate = `${loop.hz.toFixed(1)} of ${Math.round(loopTargetHz(loop))} Hz`;
  return loop.restingMs !== undefined ? `${rate}, resting (${full} when moving)` : rate;
}
