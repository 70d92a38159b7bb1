/**
 * A Verb is something the pilot may ask for: a name, a description for the model, and a zod
 * schema its arguments must pass before anything reaches a body. One file per verb; the pilot
 * and (later) the MCP server both read them from the registry.
 */
import type { z } from 'zod';

/**
 * - `body`: performed by the body; counts against the steps budget.
 * - `declare`: ends the run with the pilot's verdict; never reaches the body.
 * - `memory`: handled by quackd itself (remember); not a step.
 * - `sense`: quackd reads the body's sensors (a camera frame); moves nothing, so it is not a step
 *   and runs under dry run too.
 */
export type VerbKind = 'body' | 'declare' | 'memory' | 'sense';

export interface Verb<Input extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly kind: VerbKind;
  readonly description: string;
  readonly input: Input;
  /**
   * A short label for a step line, e.g. `walk 0.95`, from admitted arguments. A method, so a verb
   * with a precise input type is still a Verb in the registry's list of all verbs.
   */
  label(args: z.infer<Input>): string;
  /**
   * True when these arguments make the verb a stop (`torque off`): no confirmation gate holds it,
   * as none holds an emergency stop. Absent: the verb is gated whenever its duck says so.
   */
  stops?(args: z.infer<Input>): boolean;
}

/** Keeps the verb's own input type (a body's perform() reads it through BodyIntent). */
export function defineVerb<Input extends z.ZodType>(verb: Verb<Input>): Verb<Input> {
  return verb;
}
