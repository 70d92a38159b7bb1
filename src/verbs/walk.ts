/** The `walk` verb. Walk straight ahead or back; obstacles stop it early. */
import { z } from 'zod';
import { defineVerb } from './verb.js';

export const walk = defineVerb({
  name: 'walk',
  kind: 'body',
  description:
    'Walk straight ahead (negative: backwards) by this many metres. Walls, furniture and the ' +
    'ball stop you early; the result says where you stopped. speed (m/s) is optional: leave it ' +
    "out for the walk's own speed.",
  input: z.object({ metres: z.number().min(-1).max(3), speed: z.number().positive().max(2).optional() }).strict(),
  label: (a) => `walk ${a.metres.toFixed(2)}${a.speed !== undefined ? ` at ${a.speed.toFixed(2)} m/s` : ''}`,
});
