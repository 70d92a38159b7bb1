/**
 * Torque on a Microduck, real or simulated. The real duck's firmware switches it and reads it back
 * (jsonrpc/); a simulator keeps it as state (SimTorque), so the `torque` verb, the status board
 * and a dashboard's switch behave on a simulator as on the duck. A simulated world opens with
 * torque on (its duck stands); `torque off` leaves it off until a verb that moves switches it on
 * first, as the real body does. The twin's physics is not made limp: its stand goes on.
 */
import type { EventBus } from '../../runtime/events.js';
import type { VerbResult } from '../body.js';

/** What `torque` did, as the body read it back. */
export function torqueResult(on: boolean): VerbResult {
  return { ok: true, summary: on ? 'torque on: holding the current pose' : 'torque off: limp', data: { torque: on } };
}

/** The Microduck's verbs that move its joints (torque itself aside). */
const MOVES: ReadonlySet<string> = new Set(['search_scan', 'turn', 'walk', 'kick']);

export class SimTorque {
  private on = true;

  /** With a bus, each change is reported there (`body:report`), the first when the world opens. */
  constructor(
    private readonly robot?: string,
    private readonly events?: EventBus,
  ) {
    this.say();
  }

  get value(): boolean {
    return this.on;
  }

  /** The `torque` verb. */
  set(on: boolean): VerbResult {
    this.change(on);
    return torqueResult(on);
  }

  /** Before each verb: one that moves the duck switches torque on first. */
  before(verb: string): void {
    if (MOVES.has(verb)) this.change(true);
  }

  private change(on: boolean): void {
    if (this.on === on) return;
    this.on = on;
    this.say();
  }

  private say(): void {
    if (this.robot !== undefined) this.events?.emit('body:report', { robot: this.robot, torque: this.on });
  }
}
