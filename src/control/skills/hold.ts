/**
 * `hold`: keeps the targets where they are (the `stand` verb of a body with no stand policy).
 * Done after `durationMs` when one is given; otherwise it holds until stopped.
 */
import * as z from '../../zod-mini.js';
import type { Json } from '../module-spec.js';
import type { Skill } from '../skill.js';

const Options = z.strictObject({ durationMs: z.optional(z.number().check(z.positive())) });

export function createSkill(options: Json | undefined): Skill {
  const { durationMs } = Options.parse(options ?? {});
  let pose: Float64Array | undefined;
  return {
    start(_frame, held) {
      pose = held;
    },
    tick: (_frame, tMs) => (durationMs !== undefined && tMs >= durationMs ? 'done' : (pose ?? 'done')),
  };
}
