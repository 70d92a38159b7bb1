/**
 * What a dashboard is handed of a robot: its status (`<robot>/state`) and a run's gate events
 * (`<robot>/event`), as data. The service keeps a waiting gate's question as the terminal asks it,
 * the step line (`  1  quack`); on MQTT it goes in parts, without a terminal's indentation:
 * `{"question": "quack", "verb": "quack", "step": 1, "since": …}` (no step for a sense verb).
 */
import type { RuntimeEvents } from '../runtime/events.js';
import type { RobotStatus } from '../runtime/robot-status.js';
import { readStepLine, type GateQuestion } from '../safety/gate-question.js';

export type GateState = GateQuestion & { readonly since: string };

export type RobotState = Omit<RobotStatus, 'gate'> & { readonly gate?: GateState };

/** The question in parts; the verb the service matches answers against stays the service's. */
function gateParts(question: string, verb: string): GateQuestion {
  const parts = readStepLine(question);
  return { question: parts.question, verb, ...(parts.step !== undefined ? { step: parts.step } : {}) };
}

/** `<robot>/state`'s JSON. */
export function robotState(status: RobotStatus): RobotState {
  const { gate, ...rest } = status;
  return gate === undefined ? rest : { ...rest, gate: { ...gateParts(gate.question, gate.verb), since: gate.since } };
}

/** A `gate` event's fields (`waiting` carries the step line, `answered` the label): the same parts either way. */
export function gateEvent(e: RuntimeEvents['run:gate']): RuntimeEvents['run:gate'] & { readonly step?: number } {
  return { ...e, ...gateParts(e.question, e.verb) };
}
