/** The `look_around` verb. Sweep the camera all round and list what is where: a lookout's scan. */
import { z } from 'zod';
import { defineVerb } from './verb.js';

export const lookAround = defineVerb({
  name: 'look_around',
  kind: 'body',
  description:
    'Sweep the camera all the way round (turning the head, the body or the base, as this robot can) and ' +
    'come back to where you faced. Lists each thing seen with its bearing from your front (degrees, + left) ' +
    'and its distance (m).',
  input: z.object({}).strict(),
  label: () => 'look_around',
});
