/**
 * What `quackd health` says of a BNO055: whether it answers as one, its mode and calibration
 * (sys/gyro/acc/mag, 0-3 each), a warning while the gyro is uncalibrated. Reads only: a run may
 * hold the chip at the same time (Linux makes each transfer whole).
 */
import { readStatus } from './bno055.js';
import { where, type I2cDevice } from './i2c-device.js';

export interface ImuVerdict {
  readonly status: 'ok' | 'warn' | 'fail';
  readonly detail: string;
}

export async function checkBno055(device: I2cDevice, label = 'BNO055'): Promise<ImuVerdict> {
  let s;
  try {
    s = await readStatus(device);
  } catch (err) {
    return { status: 'fail', detail: err instanceof Error ? err.message : String(err) };
  }
  const head = `${label} on ${where(device)} answers`;
  // After power-on the chip idles in CONFIG mode, calibrating nothing, until a run sets it up.
  if (s.mode === 'CONFIG') return { status: 'warn', detail: `${head}, in CONFIG mode: no run has set it up since power-on, so it is calibrating nothing` };
  const c = s.calibration;
  const detail = `${head} (${s.mode}, ${s.system}): calibration sys ${c.sys} gyro ${c.gyro} acc ${c.acc} mag ${c.mag}`;
  if (s.system.startsWith('system error')) return { status: 'fail', detail };
  if (c.gyro === 0) return { status: 'warn', detail: `${detail}; the gyro is not calibrated yet: keep the duck still a few seconds` };
  return { status: 'ok', detail };
}
