/** The `turn` verb. Turn in place; positive is left. */
import { z } from 'zod';
import { defineVerb } from './verb.js';

export const turn = defineVerb({
  name: 'turn',
  kind: 'body',
  description:
    'Turn in place. Positive degrees turn left (counter-clockwise), negative turn right. rate ' +
    "(degrees per second) is optional: leave it out for the turn's own rate.",
  input: z.object({ degrees: z.number().min(-180).max(180), rate: z.number().positive().max(360).optional() }).strict(),
  label: (a) => `turn ${Math.round(a.degrees)}${a.rate !== undefined ? ` at ${Math.round(a.rate)}°/s` : ''}`,
});
