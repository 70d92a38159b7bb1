/**
 * The `snapshot` verb: the camera's current frame, as it points now, handed to the pilot. A model
 * that reads pictures sees it (downscaled, JPEG); one that reads words gets what the colour
 * detector found in it. It moves nothing (`look` is what points a head), so it is not a step and
 * `--dry-run` still takes it. quackd takes it (src/run/run-snapshots.ts), never Body.perform.
 */
import { z } from 'zod';
import { defineVerb } from './verb.js';

export const snapshot = defineVerb({
  name: 'snapshot',
  kind: 'sense',
  description:
    'Take a picture with the camera as it points now and see it; if you read words only, you get what the ' +
    "camera's ball detector found in it instead. Moves nothing and does not count as a step.",
  input: z.object({}).strict(),
  label: () => 'snapshot',
});
