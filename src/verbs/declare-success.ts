/** The `declare_success` verb. The pilot says the goal is reached; quackd checks it against the body before believing it. */
import { z } from 'zod';
import { defineVerb } from './verb.js';

export const declareSuccess = defineVerb({
  name: 'declare_success',
  kind: 'declare',
  description: 'End the run: the goal is reached. Say why in one sentence.',
  input: z.object({ reason: z.string().min(1).max(500) }).strict(),
  label: () => 'declare_success',
});
