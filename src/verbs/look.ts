/** The `look` verb. Point the head and its camera; the body clamps a target beyond its head's limits. */
import { z } from 'zod';
import { defineVerb } from './verb.js';

export const look = defineVerb({
  name: 'look',
  kind: 'body',
  description:
    'Point the head (and its camera), in degrees from your front: yaw left (+) or right (-), pitch down (+) ' +
    'or up (-), roll towards your right (+). A target beyond the head\'s limits is clamped; the result says ' +
    'so, and what the camera then sees, with bearings from your front.',
  input: z
    .object({
      yaw: z.number().min(-180).max(180),
      pitch: z.number().min(-90).max(90).optional(),
      roll: z.number().min(-90).max(90).optional(),
    })
    .strict(),
  label: (a) => `look ${Math.round(a.yaw)}/${Math.round(a.pitch ?? 0)}${a.roll !== undefined ? `/${Math.round(a.roll)}` : ''}`,
});
