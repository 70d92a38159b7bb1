/**
 * A gate's question in the two forms its askers need. A terminal is asked the step line, as the
 * run prints its steps (`  5  kick right`; `     snapshot` for a sense verb, which is no step);
 * a dashboard (MQTT's state and events) is handed data, where that indentation would be noise:
 * the verb's label, its verb and its step, each a field of its own. Pure.
 */

/** The step line a terminal is asked: the step number right-aligned as the run's lines have it. */
export function stepLine(label: string, step?: number): string {
  return step === undefined ? `     ${label}` : `${String(step).padStart(3)}  ${label}`;
}

export interface GateQuestion {
  /** What the verb would do, in the run's words: `kick right`. */
  readonly question: string;
  /** The verb a `confirm` answer names: `kick`. */
  readonly verb: string;
  /** The step it would be; none for a sense verb (looking is not a step). */
  readonly step?: number;
}

/** A step line (or a bare label) read back into its parts; a line with more after it (a flock's member) keeps that in the question. */
export function readStepLine(line: string): GateQuestion {
  const numbered = /^\s*(\d+)\s+(\S[\s\S]*)$/.exec(line);
  const question = (numbered?.[2] ?? line).trim();
  const verb = /^\S+/.exec(question)?.[0] ?? question;
  return { question, verb, ...(numbered?.[1] !== undefined ? { step: Number(numbered[1]) } : {}) };
}
