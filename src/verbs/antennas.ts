/** The `antennas` verb. Set the two antennas' angles (a robot's way to show how it feels). */
import { z } from 'zod';
import { defineVerb } from './verb.js';

const angle = z.number().min(-180).max(180);

export const antennas = defineVerb({
  name: 'antennas',
  kind: 'body',
  description: 'Set the left and right antennas to these angles, in degrees (0 is upright, + forward).',
  input: z.object({ left: angle, right: angle }).strict(),
  label: (a) => `antennas ${Math.round(a.left)}/${Math.round(a.right)}`,
});
