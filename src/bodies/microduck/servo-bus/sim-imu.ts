/**
 * SIMULATION ONLY: the trunk's IMU as a simulator tells it, in a small JSON file it rewrites
 * (by rename, so a reader never sees half a file) each physics step: `{ gyro, gravity }` in the
 * trunk frame, as the loop wants them (src/control/plant.ts SensorFrame). The body reads it
 * where a real duck reads its BNO055 (trunk-imu.ts).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const Vec3 = z.tuple([z.number(), z.number(), z.number()]);
export const SimImuSchema = z.object({
  gyro: Vec3,
  gravity: Vec3,
  /** Read through a simulated BNO055 (an `imu` block too): from now on its transfers fail with this. */
  i2c_error: z.string().optional(),
});
export type SimImuReading = z.infer<typeof SimImuSchema>;

/** The newest reading, or undefined when the file is missing or unreadable. */
export function readSimImu(path: string): SimImuReading | undefined {
  try {
    const parsed = SimImuSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
