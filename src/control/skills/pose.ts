/**
 * `pose`: asks for a pose outright and lets the safety stage's step limit make the way there
 * (each joint at its top speed). Done when every joint reads within `toleranceRad` of its target;
 * fails when `timeoutMs` passes first (a joint held back by a wall, a limit tighter than the pose).
 */
import * as z from '../../zod-mini.js';
import type { Json } from '../module-spec.js';
import type { Skill, SkillContext } from '../skill.js';

const Options = z.strictObject({
  targets: z.array(z.number()),
  toleranceRad: z._default(z.number().check(z.positive()), 0.01),
  timeoutMs: z._default(z.number().check(z.positive()), 5000),
});

export function createSkill(options: Json | undefined, context: SkillContext): Skill {
  const { targets, toleranceRad, timeoutMs } = Options.parse(options);
  if (targets.length !== context.joints.length) throw new Error(`pose: ${targets.length} targets for ${context.joints.length} joints`);
  const goal = Float64Array.from(targets);
  return {
    tick(frame, tMs) {
      if (goal.every((g, i) => Math.abs((frame.jointPos[i] ?? Number.NaN) - g) <= toleranceRad)) return 'done';
      if (tMs >= timeoutMs) throw new Error(`pose not reached within ${timeoutMs} ms`);
      return goal;
    },
  };
}
