/** The `turn_body` verb. Turn a body that turns on a fixed base (Reachy Mini's) to a yaw. */
import { z } from 'zod';
import { defineVerb } from './verb.js';

export const turnBody = defineVerb({
  name: 'turn_body',
  kind: 'body',
  description:
    "Turn the body on its fixed base to this yaw, in degrees left (+) or right (-) of the base's front. " +
    'A yaw beyond the body\'s limit is clamped; the head keeps looking where it did while it can, and is ' +
    'carried along when the body would leave it too far behind. The result says what moved.',
  input: z.object({ yaw: z.number().min(-180).max(180) }).strict(),
  label: (a) => `turn_body ${Math.round(a.yaw)}`,
});
