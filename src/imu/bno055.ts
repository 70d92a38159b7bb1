/**
 * The BNO055's transactions over any I2cDevice: check the chip id, reset it into CONFIG mode,
 * set units, the axis remap and the calibration offsets, then IMUPLUS (gyro and accelerometer
 * fused, no magnetometer: the Open Duck Mini v2 reference runtime's mode). Each tick reads gyro,
 * quaternion and gravity in one 32-byte burst. A chip that does not answer or is not a BNO055 is
 * a one-line error naming the bus and the address; a read that fails later is ImuLostError.
 */
import {
  ANY_TO_CONFIG_MS,
  BNO055_CHIP_ID,
  BURST_LENGTH,
  BURST_START,
  CONFIG_TO_ANY_MS,
  MODE,
  REG,
  RESET_MS,
  RST_SYS,
  SYS_ERR_TEXT,
  SYS_STATUS_TEXT,
  UNIT_SEL_VALUE,
  decodeBurst,
  decodeCalibration,
  encodeOffsets,
  encodeRemap,
  modeName,
  type AxisRemap,
  type Bno055Reading,
  type CalibrationOffsets,
  type CalibrationStatus,
} from './bno055-codec.js';
import { ImuLostError, ImuNoAccessError, ImuSilentError, ImuWrongChipError } from './errors.js';
import { where, type I2cDevice } from './i2c-device.js';

export interface Bno055Setup {
  readonly remap: AxisRemap;
  readonly offsets?: CalibrationOffsets;
}

export interface Bno055Status {
  /** OPR_MODE by name (`IMUPLUS`, `CONFIG` on a chip no run has set up since power-on). */
  readonly mode: string;
  readonly calibration: CalibrationStatus;
  /** SYS_STATUS, and SYS_ERR when it says system error. */
  readonly system: string;
}

type Sleep = (ms: number) => Promise<void>;
const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** How often the chip is asked whether it is back from its reset. */
const RESET_POLL_MS = 10;
const reasonOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** CHIP_ID, read as the first thing on the bus: nothing answering and a wrong chip are told apart. */
async function checkChip(device: I2cDevice): Promise<void> {
  let id: number;
  try {
    id = (await device.readBlock(REG.CHIP_ID, 1))[0] ?? -1;
  } catch (err) {
    // A bus the user may not open is no silent chip: its own line says what lets quackd in.
    if (err instanceof ImuNoAccessError) throw err;
    throw new ImuSilentError(where(device), reasonOf(err));
  }
  if (id !== BNO055_CHIP_ID) throw new ImuWrongChipError(where(device), id);
}

export class Bno055 {
  private constructor(
    readonly device: I2cDevice,
    private readonly sleep: Sleep,
  ) {}

  /** Resets the chip and sets it up; the first fused reading follows a few ms after this resolves. */
  static async open(device: I2cDevice, setup: Bno055Setup, options: { readonly sleep?: Sleep } = {}): Promise<Bno055> {
    const sleep = options.sleep ?? realSleep;
    await checkChip(device);
    const chip = new Bno055(device, sleep);
    try {
      await chip.configure(setup);
    } catch (err) {
      if (err instanceof ImuSilentError) throw err;
      throw new ImuLostError(where(device), `while setting it up: ${reasonOf(err)}`);
    }
    return chip;
  }

  private async configure(setup: Bno055Setup): Promise<void> {
    const d = this.device;
    await d.writeByte(REG.PAGE_ID, 0);
    await d.writeByte(REG.OPR_MODE, MODE.CONFIG);
    await this.sleep(ANY_TO_CONFIG_MS);
    // A reset clears whatever an earlier program left (units, remap, offsets, a fusion mode).
    await d.writeByte(REG.SYS_TRIGGER, RST_SYS);
    await this.backFromReset();
    await d.writeByte(REG.PAGE_ID, 0);
    await d.writeByte(REG.PWR_MODE, 0x00);
    await d.writeByte(REG.UNIT_SEL, UNIT_SEL_VALUE);
    const remap = encodeRemap(setup.remap);
    await d.writeByte(REG.AXIS_MAP_CONFIG, remap.config);
    await d.writeByte(REG.AXIS_MAP_SIGN, remap.sign);
    for (const block of encodeOffsets(setup.offsets ?? {})) for (const [i, b] of block.bytes.entries()) await d.writeByte(block.register + i, b);
    await d.writeByte(REG.OPR_MODE, MODE.IMUPLUS);
    await this.sleep(CONFIG_TO_ANY_MS);
  }

  /** The chip does not answer while it restarts: asked every 10 ms, for twice the datasheet's time. */
  private async backFromReset(): Promise<void> {
    let last = 'no answer';
    for (let waited = 0; waited <= RESET_MS * 2; waited += RESET_POLL_MS) {
      await this.sleep(RESET_POLL_MS);
      try {
        if ((await this.device.readBlock(REG.CHIP_ID, 1))[0] === BNO055_CHIP_ID) return;
      } catch (err) {
        last = reasonOf(err);
      }
    }
    throw new ImuSilentError(where(this.device), `it did not come back from its reset within ${RESET_MS * 2} ms (${last})`);
  }

  /** Gyro, quaternion and gravity in one burst read. */
  async read(): Promise<Bno055Reading> {
    let bytes: Uint8Array;
    try {
      bytes = await this.device.readBlock(BURST_START, BURST_LENGTH);
    } catch (err) {
      throw new ImuLostError(where(this.device), reasonOf(err));
    }
    if (bytes.length < BURST_LENGTH) throw new ImuLostError(where(this.device), `a short read (${bytes.length} of ${BURST_LENGTH} bytes)`);
    return decodeBurst(bytes);
  }

  status(): Promise<Bno055Status> {
    return readStatus(this.device);
  }

  close(): Promise<void> {
    return this.device.close();
  }
}

/**
 * Looks only (health): the chip id, then CALIB_STAT through OPR_MODE in one read. Writes nothing,
 * so it is safe beside a run that holds the chip.
 */
export async function readStatus(device: I2cDevice): Promise<Bno055Status> {
  await checkChip(device);
  let b: Uint8Array;
  try {
    b = await device.readBlock(REG.CALIB_STAT, REG.OPR_MODE - REG.CALIB_STAT + 1);
  } catch (err) {
    throw new ImuLostError(where(device), reasonOf(err));
  }
  const at = (reg: number): number => b[reg - REG.CALIB_STAT] ?? 0;
  const sys = at(REG.SYS_STATUS);
  const system = sys === 1 ? `system error: ${SYS_ERR_TEXT[at(REG.SYS_ERR)] ?? `code ${at(REG.SYS_ERR)}`}` : (SYS_STATUS_TEXT[sys] ?? `status ${sys}`);
  return { mode: modeName(at(REG.OPR_MODE)), calibration: decodeCalibration(at(REG.CALIB_STAT)), system };
}
