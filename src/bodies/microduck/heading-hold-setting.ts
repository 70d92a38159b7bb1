/**
 * A Microduck robot's `heading_hold` setting: how its straight walks keep their heading
 * (src/control/skills/heading-hold.ts). `false` sends the walk policy the command alone, for a
 * policy that holds its own heading or turns the wrong way for its vyaw; `{ gain, max_vyaw }`
 * retunes it. Unset: HEADING_HOLD, except on a servo bus, where it is off (BUS_HEADING_HOLD says
 * why). The default is the schema's, so `quackd config check` shows what a walk will do.
 */
import { z } from 'zod';
import { HEADING_HOLD } from '../../control/skills/heading-hold.js';

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

/** The setting with its default for the twin and the bridge's duck: the hold on. */
export const headingHoldSetting = HeadingHoldSettingSchema.default({ ...HEADING_HOLD });

/**
 * A servo bus's duck holds no heading unless asked: on the bus twin the hold tipped the duck in 4
 * of 6 20 s runs of bench control-run's walk-and-turn (1 of 6 without; its yaw is the gyro's, a
 * bus round behind).
 */
export const BUS_HEADING_HOLD = false;
export const busHeadingHoldSetting = HeadingHoldSettingSchema.default(BUS_HEADING_HOLD);
