/**
 * Torque on or off for a robot of the service: a one-step run of the `torque` verb, played by the
 * script pilot, so it goes through the executor (on is a gated motion on a real body, as `--goal`'s
 * motion is; off is a stop no gate holds) and is transcripted as any run. What the body read back
 * (the firmware's answer to `torque`) is the verb's result, and its success is checked against the
 * state the body reports after it.
 */
import type { BodyEntry } from '../bodies/index.js';
import { oneVerbDuckText } from '../ducks/one-verb.js';
import type { TranscriptEvent } from '../transcript/events.js';

/** A minute: one request to the firmware; the time a person takes to say yes is not charged. */
const TORQUE_SECONDS = 60;

/** The run's duck: `torque-off on kitchen-duck`, `last outcome: torque-off success`. */
export function torqueDuckName(on: boolean): string {
  return `torque-${on ? 'on' : 'off'}`;
}

/** Its success is checked against the torque the body measures after it (the firmware's state, read afresh), where it measures torque. */
export function torqueDuckText(on: boolean, body: BodyEntry): string {
  const check = body.metrics.includes('torque') ? `torque == ${on ? 1 : 0}` : undefined;
  return oneVerbDuckText('quackd torque', 'torque', `torque ${on ? 'on' : 'off'}`, body, TORQUE_SECONDS, check);
}

/** What the body read back, from the torque verb's result; undefined when it did not run (denied, failed, stopped). */
export function torqueReadBack(events: readonly TranscriptEvent[]): boolean | undefined {
  for (const e of events) {
    const torque = e.type === 'verb_result' && e.verb === 'torque' && e.ok && !e.invented ? e.data?.['torque'] : undefined;
    if (typeof torque === 'boolean') return torque;
  }
  return undefined;
}
