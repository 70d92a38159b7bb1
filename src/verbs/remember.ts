/**
 * `remember`: the pilot saves one short fact for later runs on this robot. It moves nothing and is
 * not a step; quackd handles it (src/memory), and it is offered only when memory is on, through
 * RunMemory.verbs, never through the default registry.
 */
import { z } from 'zod';
import { MAX_TAGS, NOTE_MAX_CHARS, TAG_MAX_CHARS, TOPIC_MAX_CHARS } from '../memory/entry.js';
import { defineVerb } from './verb.js';

export const rememberInput = z
  .object({
    // The limit is told to the model (JSON Schema maxLength counts characters) and enforced by memory,
    // which counts characters after folding whitespace, as every other path does; zod's .max would
    // count UTF-16 units of the raw text and refuse 200 emoji as "over 300 characters".
    text: z.string().min(1).meta({ maxLength: NOTE_MAX_CHARS }),
    tags: z.array(z.string().min(1).max(TAG_MAX_CHARS)).max(MAX_TAGS).optional(),
    topic: z.string().min(1).max(TOPIC_MAX_CHARS).optional(),
  })
  .strict();

export type RememberArgs = z.infer<typeof rememberInput>;

export const remember = defineVerb({
  name: 'remember',
  kind: 'memory',
  description:
    `Save one short fact for later runs on this robot (at most ${NOTE_MAX_CHARS} characters): where things are, ` +
    'what worked, what to avoid. Give a topic (e.g. "ball location") to replace an older fact on the same ' +
    'subject. Moves nothing and does not count as a step. Never include secrets.',
  input: rememberInput,
  label: () => 'remember',
});
