/** The `drive` verb. Drive a wheeled base straight ahead or back; obstacles stop it early. */
import { z } from 'zod';
import { defineVerb } from './verb.js';

export const drive = defineVerb({
  name: 'drive',
  kind: 'body',
  description:
    'Drive the wheeled base straight ahead (negative: backwards) by this many metres. Walls, furniture ' +
    'and things on the floor stop it early; the result says where it stopped.',
  input: z.object({ metres: z.number().min(-1).max(3) }).strict(),
  label: (a) => `drive ${a.metres.toFixed(2)}`,
});
