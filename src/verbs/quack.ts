/** The `quack` verb. Quack once: the smoke test of every body. */
import { z } from 'zod';
import { defineVerb } from './verb.js';

export const quack = defineVerb({
  name: 'quack',
  kind: 'body',
  description: 'Quack once (a sound, and a nod of the head).',
  input: z.object({}).strict(),
  label: () => 'quack',
});
