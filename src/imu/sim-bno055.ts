/**
 * SIMULATION ONLY: a BNO055 as a register file, an I2cDevice the transactions (bno055.ts) set up
 * and read as they would the chip: CHIP_ID, a reset, the axis remap applied to what it outputs,
 * offsets kept, fusion output only in a fusion mode. Its owner says how the trunk moves
 * (setTrunk); the chip sits in the trunk as `mount` says (the Open Duck Mini v2's by default),
 * so only the right `remap` in the config gives the trunk's own axes back.
 */
import {
  BNO055_CHIP_ID,
  GRAVITY_M_S2_PER_LSB,
  GYRO_RAD_S_PER_LSB,
  MODE,
  OPEN_DUCK_MINI_V2_REMAP,
  QUAT_PER_LSB,
  REG,
  RST_SYS,
  decodeRemap,
  encodeInt16s,
  parseRemap,
  type AxisRemap,
  type Vec3,
} from './bno055-codec.js';
import type { I2cDevice } from './i2c-device.js';

const STANDARD_GRAVITY = 9.80665;

/**
 * The trunk's motion in its own frame, as the loop wants it (SensorFrame): gyro rad/s, gravity a
 * unit vector pointing down, the accelerometer m/s² (absent: the trunk at rest, gravity's reaction).
 */
export interface TrunkMotion {
  readonly gyro: readonly number[];
  readonly gravity: readonly number[];
  readonly accel?: readonly number[] | undefined;
}

export class SimBno055 implements I2cDevice {
  readonly registers = new Uint8Array(0x80);
  private readonly mount: AxisRemap;
  /** In the chip's own axes. */
  private gyro: Vec3 = [0, 0, 0];
  private up: Vec3 = [0, 0, STANDARD_GRAVITY];
  /** The accelerometer less gravity's reaction: what the fusion reports as linear acceleration. */
  private linear: Vec3 = [0, 0, 0];
  /** CALIB_STAT as a fusion mode reports it: gyro and accelerometer calibrated, as after a still second. */
  calibration = 0b11_11_11_00;

  constructor(
    readonly bus = 1,
    readonly address = 0x28,
    mount: string = OPEN_DUCK_MINI_V2_REMAP,
  ) {
    const m = parseRemap(mount);
    if (typeof m === 'string') throw new Error(m);
    this.mount = m;
    this.reset();
  }

  private reset(): void {
    this.registers.fill(0);
    this.registers[REG.CHIP_ID] = BNO055_CHIP_ID;
    this.registers[REG.UNIT_SEL] = 0x80;
    this.registers[REG.AXIS_MAP_CONFIG] = 0x24;
  }

  /** The trunk's motion, turned into the chip's axes by how the chip is mounted. */
  setTrunk(m: TrunkMotion): void {
    const toChip = (v: readonly number[], scale: number): Vec3 => {
      const out: Vec3 = [0, 0, 0];
      for (const [i, axis] of this.mount.axes.entries()) out['xyz'.indexOf(axis)] = (this.mount.signs[i] ?? 1) * (v[i] ?? 0) * scale;
      return out;
    };
    this.gyro = toChip(m.gyro, 1);
    // The chip reports the reaction to gravity: its up axis reads +9.8 m/s².
    this.up = toChip(m.gravity, -STANDARD_GRAVITY);
    const accel = m.accel !== undefined ? toChip(m.accel, 1) : this.up;
    this.linear = [accel[0] - this.up[0], accel[1] - this.up[1], accel[2] - this.up[2]];
  }

  private get fusing(): boolean {
    return (this.registers[REG.OPR_MODE] ?? 0) >= MODE.IMUPLUS;
  }

  /** What the output registers hold now: the chip's axes remapped as AXIS_MAP_* say. */
  private refresh(): void {
    const r = this.registers;
    const remap = decodeRemap(r[REG.AXIS_MAP_CONFIG] ?? 0x24, r[REG.AXIS_MAP_SIGN] ?? 0) ?? { axes: ['x', 'y', 'z'], signs: [1, 1, 1] };
    const out = (v: Vec3): Vec3 => remap.axes.map((a, i) => (remap.signs[i] ?? 1) * (v['xyz'.indexOf(a)] ?? 0)) as Vec3;
    const fusing = this.fusing;
    r.set(encodeInt16s(fusing ? out(this.gyro).map((v) => v / GYRO_RAD_S_PER_LSB) : [0, 0, 0]), REG.GYR_DATA);
    r.set(encodeInt16s(fusing ? [1 / QUAT_PER_LSB, 0, 0, 0] : [0, 0, 0, 0]), REG.QUA_DATA);
    r.set(encodeInt16s(fusing ? out(this.up).map((v) => v / GRAVITY_M_S2_PER_LSB) : [0, 0, 0]), REG.GRV_DATA);
    r.set(encodeInt16s(fusing ? out(this.linear).map((v) => v / GRAVITY_M_S2_PER_LSB) : [0, 0, 0]), REG.LIA_DATA);
    r[REG.CALIB_STAT] = fusing ? this.calibration : 0;
    r[REG.SYS_STATUS] = fusing ? 5 : 0;
  }

  /** Why every transfer fails from now on (a wire come loose), or undefined. */
  private loose: string | undefined;

  /** From now on every transfer fails with `reason`, as when SDA or SCL comes loose. */
  unplug(reason: string): void {
    this.loose = reason;
  }

  /** Whether every transfer from now on never comes back (hang). */
  private stretching = false;

  /**
   * From now on no transfer comes back, with no error: the chip holds SCL low (clock stretching),
   * which a Pi's I²C does not honour, and the read that asked waits for good.
   */
  hang(): void {
    this.stretching = true;
  }

  readBlock(register: number, length: number): Promise<Uint8Array> {
    if (this.stretching) return new Promise(() => undefined);
    if (this.loose !== undefined) return Promise.reject(new Error(this.loose));
    this.refresh();
    return Promise.resolve(this.registers.slice(register, register + length));
  }

  writeByte(register: number, value: number): Promise<void> {
    if (this.loose !== undefined) return Promise.reject(new Error(this.loose));
    if (register === REG.SYS_TRIGGER && (value & RST_SYS) !== 0) this.reset();
    // The chip keeps its remap and offsets writable only in CONFIG mode (datasheet 3.4, 3.6.4).
    else if (register >= REG.AXIS_MAP_CONFIG && this.fusing) return Promise.resolve();
    else this.registers[register] = value;
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /** AXIS_MAP_CONFIG and AXIS_MAP_SIGN as written. */
  remapBytes(): { config: number; sign: number } {
    return { config: this.registers[REG.AXIS_MAP_CONFIG] ?? 0, sign: this.registers[REG.AXIS_MAP_SIGN] ?? 0 };
  }
}
