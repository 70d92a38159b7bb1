/** The `turn` verb. Turn in place; positive is left. */
import { z } from 'zod';
import { defineVerb } from './verb.js';

export const turn = defineVerb({
  name: 'turn',
  kind: 'body',
  description: 'Turn in place. Positive degrees turn left (counter-clockwise), negative turn right.',
  input: z.object({ degrees: z.number().min(-180).max(180) }).strict(),
  label: (a) => `turn ${Math.round(a.degrees)}`,
});
