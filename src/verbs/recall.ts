/**
 * `recall`: the pilot searches this robot's memory (src/memory/recall.ts) for what earlier runs
 * and people saved, e.g. before searching a room it may have searched before. Like `remember` it
 * moves nothing, is not a step, and is offered only when memory is on (RunMemory.verbs).
 */
import { z } from 'zod';
import { defineVerb } from './verb.js';

export const RECALL_QUERY_MAX_CHARS = 200;

export const recallInput = z.object({ query: z.string().trim().min(1).max(RECALL_QUERY_MAX_CHARS) }).strict();

export const recall = defineVerb({
  name: 'recall',
  kind: 'memory',
  description:
    "Search this robot's memory (notes and earlier runs) with a short question or a few keywords, e.g. " +
    '"where was the ball found". Returns the best matches with their kind and age, or says nothing matches. ' +
    'Moves nothing and does not count as a step.',
  input: recallInput,
  label: (args) => `recall ${JSON.stringify(args.query)}`,
});
