/**
 * The `imu:` block of a robot that reads a BNO055 over I²C, its defaults the Open Duck Mini v2's
 * (the reference runtime's: the Pi's I²C bus 1, the breakout's address 0x28, its axis remap).
 */
import { z } from 'zod';
import { OPEN_DUCK_MINI_V2_REMAP, parseRemap } from './bno055-codec.js';

const int16 = z.number().int().min(-32768).max(32767);
const triple = z.tuple([int16, int16, int16]);

export const ImuSettingsSchema = z
  .object({
    /** `/dev/i2c-N`'s N: 1 on a Raspberry Pi's header (pins 3 and 5). */
    bus: z.coerce.number().int().min(0).default(1),
    /** 0x28, or 0x29 with the breakout's ADR pin high. */
    address: z.coerce.number().int().min(0x03).max(0x77).default(0x28),
    /** Which chip axis, signed, each of the robot's x, y, z is (datasheet 3.4). */
    remap: z
      .string()
      .default(OPEN_DUCK_MINI_V2_REMAP)
      .superRefine((text, ctx) => {
        const r = parseRemap(text);
        if (typeof r === 'string') ctx.addIssue({ code: 'custom', message: r });
      }),
    /** Calibration offsets in the chip's raw units, as it reads them back (the reference runtime's imu_calib_data). */
    offsets: z
      .object({
        accelerometer: triple.optional(),
        magnetometer: triple.optional(),
        gyroscope: triple.optional(),
        accelerometer_radius: z.number().int().min(-1000).max(1000).optional(),
        magnetometer_radius: z.number().int().min(-960).max(960).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type ImuSettings = z.infer<typeof ImuSettingsSchema>;
