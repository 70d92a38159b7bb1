/**
 * The `imu` health line of a servo-bus duck: its BNO055 asked as the config says (src/imu/check.ts),
 * a simulated one set up as a run would (sim_imu with imu), or why there is none.
 */
import { Bno055 } from '../../../imu/bno055.js';
import { parseRemap, type AxisRemap } from '../../../imu/bno055-codec.js';
import { checkBno055, type ImuVerdict } from '../../../imu/check.js';
import { openI2cDevice } from '../../../imu/i2c-bus-device.js';
import { ImuSettingsSchema } from '../../../imu/settings.js';
import { SimBno055 } from '../../../imu/sim-bno055.js';

export async function checkBusImu(settings: Readonly<Record<string, unknown>>): Promise<ImuVerdict> {
  const simImu = typeof settings['sim_imu'] === 'string';
  if (settings['imu'] === undefined) {
    if (simImu) return { status: 'ok', detail: 'a simulator\'s (sim_imu): no chip to ask' };
    return { status: 'warn', detail: 'none configured: walk, turn and kick are refused without one (an imu: block in the robot\'s settings)' };
  }
  const parsed = ImuSettingsSchema.safeParse(settings['imu']);
  // The config line says what is wrong with the block.
  if (!parsed.success) return { status: 'fail', detail: 'not checked: the imu settings do not parse' };
  const imu = parsed.data;
  if (simImu) {
    const sim = new SimBno055(imu.bus, imu.address);
    await Bno055.open(sim, { remap: parseRemap(imu.remap) as AxisRemap }, { sleep: () => Promise.resolve() });
    return checkBno055(sim, 'simulated BNO055 (sim_imu)');
  }
  let device;
  try {
    device = await openI2cDevice(imu.bus, imu.address);
  } catch (err) {
    return { status: 'fail', detail: err instanceof Error ? err.message : String(err) };
  }
  try {
    return await checkBno055(device);
  } finally {
    await device.close().catch(() => undefined);
  }
}
