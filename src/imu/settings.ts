/**
 * The `imu:` block of a robot that reads a BNO055 over I²C, its defaults the Open Duck Mini v2's
 * (the reference runtime's: the Pi's I²C bus 1, the breakout's address 0x28, its axis remap).
 */
import * as z from '../zod-mini.js';
import { numberSetting } from '../config/number-setting.js';
import { OPEN_DUCK_MINI_V2_REMAP, parseRemap } from './bno055-codec.js';

const int16 = z.int().check(z.minimum(-32768), z.maximum(32767));
const triple = z.tuple([int16, int16, int16]);

/** A number, or text that reads as one (`0x29`), that is a whole number from `min` to `max`. */
const wholeFrom = (example: number | string, min: number, max = Number.MAX_SAFE_INTEGER) => numberSetting({ example, int: true, min, max });

export const ImuSettingsSchema = z.strictObject({
  /** `/dev/i2c-N`'s N: 1 on a Raspberry Pi's header (pins 3 and 5). */
  bus: z._default(wholeFrom(1, 0), 1),
  /** 0x28, or 0x29 with the breakout's ADR pin high. */
  address: z._default(wholeFrom('0x28', 0x03, 0x77), 0x28),
  /** Which chip axis, signed, each of the robot's x, y, z is (datasheet 3.4). */
  remap: z._default(z.string(), OPEN_DUCK_MINI_V2_REMAP).check(
    z.superRefine((text, ctx) => {
      const r = parseRemap(text);
      if (typeof r === 'string') ctx.addIssue({ code: 'custom', message: r });
    }),
  ),
  /** Calibration offsets in the chip's raw units, as it reads them back (the reference runtime's imu_calib_data). */
  offsets: z.optional(
    z.strictObject({
      accelerometer: z.optional(triple),
      magnetometer: z.optional(triple),
      gyroscope: z.optional(triple),
      accelerometer_radius: z.optional(z.int().check(z.minimum(-1000), z.maximum(1000))),
      magnetometer_radius: z.optional(z.int().check(z.minimum(-960), z.maximum(960))),
    }),
  ),
});
export type ImuSettings = z.infer<typeof ImuSettingsSchema>;
