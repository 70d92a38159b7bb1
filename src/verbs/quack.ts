/** The `quack` verb. Quack once: the smoke test of every body. */
import { z } from 'zod';
import { defineVerb } from './verb.js';

export const quack = defineVerb({
  name: 'quack',
  kind: 'body',
  description: "Quack once: the body's own sound (a quack and a nod, or where it has no speaker its antennas' wiggle or a clap of its grippers).",
  input: z.object({}).strict(),
  label: () => 'quack',
});
