/**
 * The trunk's IMU as the bus plant reads it each tick, in the control worker: the BNO055 over
 * I²C (src/imu), or, SIMULATION ONLY, a simulator's file (sim-imu.ts), read directly or, with
 * an `imu` block too, through a simulated BNO055's registers so the codec and the transactions
 * are what a walk in the twin reads through. A read is started each tick and its answer is the
 * next tick's (a few ms old at 50 Hz), so the tick never waits on the I²C bus.
 */
import { Bno055 } from '../../../imu/bno055.js';
import { parseRemap, type AxisRemap, type Vec3 } from '../../../imu/bno055-codec.js';
import { openI2cDevice } from '../../../imu/i2c-bus-device.js';
import { ImuLostError } from '../../../imu/errors.js';
import { where, type I2cDevice } from '../../../imu/i2c-device.js';
import type { ImuSettings } from '../../../imu/settings.js';
import { SimBno055 } from '../../../imu/sim-bno055.js';
import { SimImuReader } from './sim-imu.js';

export interface TrunkReading {
  readonly gyro: Vec3;
  /** A unit vector pointing down, in the trunk's axes. */
  readonly gravity: Vec3;
  /** The accelerometer, m/s², in the trunk's axes (standing still ≈ (0, 0, +9.81)); absent where the source gives none. */
  readonly accel?: Vec3;
}

export interface TrunkImu {
  /** Starts this tick's read unless one is under way. */
  tick(): void;
  /** The newest reading, or undefined before the first. */
  latest(): TrunkReading | undefined;
  /** Why the IMU can no longer be trusted, or undefined. */
  fault(): string | undefined;
  /** How long the read under way has been out at `now` (performance.now()), ms; 0 with none out. */
  outMs(now: number): number;
  close(): Promise<void>;
}

/**
 * A read out this long is a chip that stopped answering, not a slow one: a BNO055 holding SCL low
 * (its clock stretching, which the Pi's I²C does not honour, can lock the bus) leaves the read
 * waiting with no error at all. Before, the trunk kept the last reading for good and a walk went
 * on with a frozen gyro and gravity. A burst read takes about 1 ms at 400 kHz.
 */
export const IMU_SILENT_MS = 500;

/** Below half a g the fusion has not settled (its first reads are zeros): no reading yet. */
const MIN_GRAVITY_M_S2 = 4.9;

/** A BNO055 reading in the trunk's frame: the remap already made the chip's axes the trunk's. */
export function trunkReading(r: { readonly gyro: Vec3; readonly gravity: Vec3; readonly accelerometer?: Vec3 }): TrunkReading | undefined {
  const [x, y, z] = r.gravity;
  const norm = Math.hypot(x, y, z);
  if (norm < MIN_GRAVITY_M_S2) return undefined;
  return { gyro: r.gyro, gravity: [-x / norm, -y / norm, -z / norm], ...(r.accelerometer !== undefined ? { accel: r.accelerometer } : {}) };
}

class Bno055TrunkImu implements TrunkImu {
  private reading: TrunkReading | undefined;
  /** When the read under way started (performance.now()), or undefined with none out. */
  private startedAt: number | undefined;
  private problem: string | undefined;

  constructor(
    private readonly chip: Bno055,
    private readonly before?: () => void,
    private readonly after?: () => void,
  ) {}

  tick(): void {
    if (this.problem !== undefined) return;
    if (this.startedAt !== undefined) {
      const out = performance.now() - this.startedAt;
      if (out >= IMU_SILENT_MS) this.problem = new ImuLostError(where(this.chip.device), `a read has not come back in ${Math.round(out)} ms`).message;
      return;
    }
    this.before?.();
    const started = (this.startedAt = performance.now());
    void this.chip
      .read()
      .then(
        (r) => {
          this.reading = trunkReading(r) ?? this.reading;
        },
        (err: unknown) => {
          this.problem ??= err instanceof Error ? err.message : String(err);
        },
      )
      .finally(() => {
        if (this.startedAt === started) this.startedAt = undefined;
      });
  }

  outMs(now: number): number {
    return this.startedAt === undefined ? 0 : Math.max(0, now - this.startedAt);
  }

  latest(): TrunkReading | undefined {
    return this.problem === undefined ? this.reading : undefined;
  }

  fault(): string | undefined {
    return this.problem;
  }

  close(): Promise<void> {
    this.after?.();
    return this.chip.close().catch(() => undefined);
  }
}

class FileTrunkImu implements TrunkImu {
  private readonly file: SimImuReader;
  constructor(path: string) {
    this.file = new SimImuReader(path);
  }
  tick(): void {}
  latest(): TrunkReading | undefined {
    return this.file.read();
  }
  fault(): undefined {
    return undefined;
  }
  outMs(): number {
    return 0;
  }
  close(): Promise<void> {
    this.file.close();
    return Promise.resolve();
  }
}

export interface TrunkImuOptions {
  readonly imu?: ImuSettings;
  readonly simImu?: string;
  /** Tests: the I²C device to read instead of /dev/i2c-N. */
  readonly device?: I2cDevice;
}

/**
 * The IMU the settings describe, or, when there is none or it cannot be opened, why not: the
 * body then refuses the motion verbs with that line, and opens all the same (torque, health).
 */
export async function openTrunkImu(o: TrunkImuOptions): Promise<TrunkImu | string> {
  if (o.imu === undefined) return o.simImu !== undefined ? new FileTrunkImu(o.simImu) : 'none is configured (an imu: block in the robot\'s settings)';
  const remap = parseRemap(o.imu.remap) as AxisRemap;
  const setup = { remap, ...(o.imu.offsets !== undefined ? { offsets: o.imu.offsets } : {}) };
  let device: I2cDevice | undefined;
  let before: (() => void) | undefined;
  let file: SimImuReader | undefined;
  try {
    if (o.device !== undefined) device = o.device;
    else if (o.simImu !== undefined) {
      const sim = new SimBno055(o.imu.bus, o.imu.address);
      const reader = (file = new SimImuReader(o.simImu));
      let last: ReturnType<SimImuReader['read']>;
      before = () => {
        const motion = reader.read();
        if (motion === undefined || motion === last) return;
        last = motion;
        sim.setTrunk(motion);
        if (motion.i2c_error !== undefined) sim.unplug(motion.i2c_error);
        if (motion.i2c_hang === true) sim.hang();
      };
      device = sim;
    } else device = await openI2cDevice(o.imu.bus, o.imu.address);
    const f = file;
    return new Bno055TrunkImu(await Bno055.open(device, setup), before, f !== undefined ? () => f.close() : undefined);
  } catch (err) {
    file?.close();
    await device?.close().catch(() => undefined);
    return err instanceof Error ? err.message : String(err);
  }
}
