/**
 * The `report` verb. Say what is where; the body checks each sighting against what is really
 * there, so a lookout's `success_when` measures true reports, not words.
 */
import { z } from 'zod';
import { plural } from '../text/plural.js';
import { defineVerb } from './verb.js';

export const sighting = z
  .object({
    thing: z.string().min(1).max(40),
    bearing_deg: z.number().min(-180).max(180),
    distance_m: z.number().min(0).max(20),
  })
  .strict();

export const report = defineVerb({
  name: 'report',
  kind: 'body',
  description:
    'Report what is where, as seen from where you are now: each thing by the name the camera gave it, its ' +
    'bearing from your front (degrees, + left) and its distance (m). Moves nothing; the result says which ' +
    'sightings hold.',
  input: z.object({ sightings: z.array(sighting).min(1).max(20) }).strict(),
  label: (a) => `report ${plural(a.sightings.length, 'thing')}`,
});
