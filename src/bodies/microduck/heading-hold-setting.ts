/**
 * A Microduck robot's `heading_hold` setting: how its straight walks keep their heading
 * (src/control/skills/heading-hold.ts). `false` sends the walk policy the command alone, for a
 * policy that holds its own heading or turns the wrong way for its vyaw; `{ gain, max_vyaw }`
 * retunes it. Unset: the defaults, except on a servo bus, where it is off (createBusBody says why).
 */
import { z } from 'zod';

export const HeadingHoldSettingSchema = z.union([
  z.literal(false),
  z
    .object({
      /** rad/s of vyaw per rad of heading error. */
      gain: z.number().positive(),
      /** The most vyaw the hold sends, rad/s. */
      max_vyaw: z.number().positive(),
    })
    .strict(),
]);
