/** The `kick` verb. Kick the ball with one foot. */
import { z } from 'zod';
import { defineVerb } from './verb.js';

export const kick = defineVerb({
  name: 'kick',
  kind: 'body',
  description:
    'Kick with one foot. The ball moves only if it is right in front of you and within reach; ' +
    'it goes farthest when kicked from about 0.25 m, with the foot on the ball\'s side.',
  input: z.object({ foot: z.enum(['left', 'right']) }).strict(),
  label: (a) => `kick ${a.foot}`,
});
