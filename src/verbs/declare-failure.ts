/** The `declare_failure` verb. The pilot gives up, saying why; the run ends as a failure. */
import { z } from 'zod';
import { defineVerb } from './verb.js';

export const declareFailure = defineVerb({
  name: 'declare_failure',
  kind: 'declare',
  description: 'End the run: the goal cannot be reached. Say why in one sentence.',
  input: z.object({ reason: z.string().min(1).max(500) }).strict(),
  label: () => 'declare_failure',
});
