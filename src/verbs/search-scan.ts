/** The `search_scan` verb. Turn and look until the ball is in view. */
import { z } from 'zod';
import { defineVerb } from './verb.js';

export const searchScan = defineVerb({
  name: 'search_scan',
  kind: 'body',
  description:
    'Turn in place, looking with the camera, until the ball is seen or a full turn is done. ' +
    'Reports the ball\'s bearing (relative to where you then face) and distance if seen.',
  input: z.object({}).strict(),
  label: () => 'search_scan',
});
