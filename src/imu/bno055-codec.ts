/**
 * The Bosch BNO055's register map and what its bytes mean (datasheet BST-BNO055-DS000, rev 1.4),
 * pure: register addresses on page 0, operation modes, the unit scales of gyro, gravity and
 * quaternion, the axis remap bytes, the calibration status byte and the calibration offsets.
 * The transactions (bno055.ts) and the simulated chip in the tests both speak through it.
 */

/** Page 0 registers (datasheet 4.2, table 4-2). */
export const REG = {
  CHIP_ID: 0x00,
  PAGE_ID: 0x07,
  GYR_DATA: 0x14,
  EUL_DATA: 0x1a,
  QUA_DATA: 0x20,
  LIA_DATA: 0x28,
  GRV_DATA: 0x2e,
  CALIB_STAT: 0x35,
  SYS_STATUS: 0x39,
  SYS_ERR: 0x3a,
  UNIT_SEL: 0x3b,
  OPR_MODE: 0x3d,
  PWR_MODE: 0x3e,
  SYS_TRIGGER: 0x3f,
  AXIS_MAP_CONFIG: 0x41,
  AXIS_MAP_SIGN: 0x42,
  ACC_OFFSET: 0x55,
  MAG_OFFSET: 0x5b,
  GYR_OFFSET: 0x61,
  ACC_RADIUS: 0x67,
  MAG_RADIUS: 0x69,
} as const;

/** What CHIP_ID reads on every BNO055 (datasheet 4.3.1). */
export const BNO055_CHIP_ID = 0xa0;

/** OPR_MODE values (datasheet 3.3, table 3-5). IMU is what Adafruit's library calls IMUPLUS_MODE. */
export const MODE = {
  CONFIG: 0x00,
  ACCONLY: 0x01,
  MAGONLY: 0x02,
  GYROONLY: 0x03,
  ACCMAG: 0x04,
  ACCGYRO: 0x05,
  MAGGYRO: 0x06,
  AMG: 0x07,
  IMUPLUS: 0x08,
  COMPASS: 0x09,
  M4G: 0x0a,
  NDOF_FMC_OFF: 0x0b,
  NDOF: 0x0c,
} as const;
export type ModeName = keyof typeof MODE;

/** Switching times (datasheet 3.3, table 3-6), ms. */
export const CONFIG_TO_ANY_MS = 7;
export const ANY_TO_CONFIG_MS = 19;
/** Reset to the chip answering again (datasheet table 0-2: power-on reset time, 650 ms typical). */
export const RESET_MS = 650;
/** SYS_TRIGGER bit 5: reset the system. */
export const RST_SYS = 0x20;
/** UNIT_SEL: m/s², dps, degrees, °C, Android orientation: the chip's reset value, written so the scales below hold. */
export const UNIT_SEL_VALUE = 0x80;

/** 1 dps = 16 LSB (datasheet 3.6.4.3, table 3-22): rad/s per LSB. */
export const GYRO_RAD_S_PER_LSB = Math.PI / 180 / 16;
/** 1 m/s² = 100 LSB, gravity and linear acceleration alike (datasheet 3.6.5.7, tables 3-33 and 3-35). */
export const GRAVITY_M_S2_PER_LSB = 1 / 100;
/** 1 quaternion unit = 2^14 LSB (datasheet 3.6.5.5, table 3-31). */
export const QUAT_PER_LSB = 1 / 2 ** 14;

export type Vec3 = [number, number, number];
export type Quat = [number, number, number, number];

const int16 = (b: Uint8Array, at: number): number => {
  const v = (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
  return v >= 0x8000 ? v - 0x10000 : v;
};
const vec = (b: Uint8Array, at: number, scale: number): Vec3 => [int16(b, at) * scale, int16(b, at + 2) * scale, int16(b, at + 4) * scale];

/** Little-endian int16 triple, as every data and offset register holds them (LSB first). */
export function encodeInt16s(values: readonly number[]): Uint8Array {
  const out = new Uint8Array(values.length * 2);
  for (const [i, v] of values.entries()) {
    const n = Math.max(-32768, Math.min(32767, Math.round(v))) & 0xffff;
    out[i * 2] = n & 0xff;
    out[i * 2 + 1] = n >> 8;
  }
  return out;
}
export const decodeInt16s = (b: Uint8Array, count: number): number[] => Array.from({ length: count }, (_, i) => int16(b, i * 2));

/** One burst from GYR_DATA through the end of GRV_DATA: gyro, Euler, quaternion, linear acceleration, gravity. */
export const BURST_START = REG.GYR_DATA;
export const BURST_LENGTH = REG.GRV_DATA + 6 - REG.GYR_DATA;

export interface Bno055Reading {
  /** Angular rate, rad/s, in the remapped axes. */
  readonly gyro: Vec3;
  /** Gravity as the chip reports it (the up axis reads +9.8 m/s²), m/s². */
  readonly gravity: Vec3;
  /**
   * The accelerometer, m/s²: the fusion's linear acceleration plus its gravity, which is what the
   * chip defines them from (datasheet 3.6.5.6: linear acceleration = acceleration − gravity), so
   * the one burst serves it without reading ACC_DATA too (12 bytes more each tick).
   */
  readonly accelerometer: Vec3;
  /** Orientation, w x y z. */
  readonly quaternion: Quat;
}

/** The burst read at BURST_START, BURST_LENGTH bytes. */
export function decodeBurst(b: Uint8Array): Bno055Reading {
  if (b.length < BURST_LENGTH) throw new RangeError(`a BNO055 burst is ${BURST_LENGTH} bytes, got ${b.length}`);
  const q = REG.QUA_DATA - BURST_START;
  const gravity = vec(b, REG.GRV_DATA - BURST_START, GRAVITY_M_S2_PER_LSB);
  const linear = vec(b, REG.LIA_DATA - BURST_START, GRAVITY_M_S2_PER_LSB);
  return {
    gyro: vec(b, 0, GYRO_RAD_S_PER_LSB),
    gravity,
    accelerometer: [linear[0] + gravity[0], linear[1] + gravity[1], linear[2] + gravity[2]],
    quaternion: [int16(b, q) * QUAT_PER_LSB, int16(b, q + 2) * QUAT_PER_LSB, int16(b, q + 4) * QUAT_PER_LSB, int16(b, q + 6) * QUAT_PER_LSB],
  };
}

/**
 * An axis remap as the robot's config says it: which chip axis, with which sign, each of the
 * robot's x, y and z is. `-y +x +z`: the robot's x is the chip's −y, its y the chip's x.
 */
export type Axis = 'x' | 'y' | 'z';
export interface AxisRemap {
  readonly axes: readonly [Axis, Axis, Axis];
  readonly signs: readonly [1 | -1, 1 | -1, 1 | -1];
}

const AXIS_CODE: Readonly<Record<Axis, number>> = { x: 0, y: 1, z: 2 };
const AXES: readonly Axis[] = ['x', 'y', 'z'];
export const REMAP_PATTERN = /^\s*([+-])([xyz])\s+([+-])([xyz])\s+([+-])([xyz])\s*$/;

/** `-y +x +z` → the remap, or a one-line reason it is not one. */
export function parseRemap(text: string): AxisRemap | string {
  const m = REMAP_PATTERN.exec(text);
  if (m === null) return `"${text}" is not three signed axes, e.g. "-y +x +z"`;
  const axes = [m[2], m[4], m[6]] as [Axis, Axis, Axis];
  if (new Set(axes).size !== 3) return `"${text}" names a chip axis twice (the BNO055 refuses it: datasheet 3.4)`;
  const sign = (s: string | undefined): 1 | -1 => (s === '-' ? -1 : 1);
  const remap: AxisRemap = { axes, signs: [sign(m[1]), sign(m[3]), sign(m[5])] };
  if (handedness(remap) < 0) {
    const flipped: AxisRemap = { axes, signs: [remap.signs[0], remap.signs[1], remap.signs[2] === 1 ? -1 : 1] };
    return `"${text}" mirrors the axes, which no BNO055 mounting gives (the datasheet's placements P0–P7 are rotations): flip one sign, e.g. "${formatRemap(flipped)}"`;
  }
  return remap;
}

/** The remap's determinant, +1 for a rotation, −1 for a mirror: the permutation's parity times the signs. */
function handedness(r: AxisRemap): number {
  const [a, b, c] = r.axes.map((x) => AXIS_CODE[x]) as [number, number, number];
  const inversions = Number(a > b) + Number(a > c) + Number(b > c);
  return (inversions % 2 === 0 ? 1 : -1) * r.signs[0] * r.signs[1] * r.signs[2];
}

export const formatRemap = (r: AxisRemap): string => r.axes.map((a, i) => `${r.signs[i] === -1 ? '-' : '+'}${a}`).join(' ');

/** AXIS_MAP_CONFIG and AXIS_MAP_SIGN (datasheet 3.4): X in bits 1:0, Y 3:2, Z 5:4; sign bits X 2, Y 1, Z 0. */
export function encodeRemap(r: AxisRemap): { config: number; sign: number } {
  const [x, y, z] = r.axes.map((a) => AXIS_CODE[a]) as [number, number, number];
  const [sx, sy, sz] = r.signs.map((s) => (s === -1 ? 1 : 0)) as [number, number, number];
  return { config: (z << 4) | (y << 2) | x, sign: (sx << 2) | (sy << 1) | sz };
}

export function decodeRemap(config: number, sign: number): AxisRemap | undefined {
  const codes = [config & 3, (config >> 2) & 3, (config >> 4) & 3];
  if (codes.some((c) => c === 3) || new Set(codes).size !== 3) return undefined;
  const bit = (n: number): 1 | -1 => ((sign >> n) & 1 ? -1 : 1);
  return { axes: codes.map((c) => AXES[c]) as [Axis, Axis, Axis], signs: [bit(2), bit(1), bit(0)] };
}

/**
 * The Open Duck Mini v2's mounting, as its reference runtime sets it (Open_Duck_Mini_Runtime,
 * imu.py: axis_remap Y, X, Z with signs −, +, +, its default `imu_upside_down: false`). It is the
 * datasheet's placement P0 (0x21, 0x04).
 */
export const OPEN_DUCK_MINI_V2_REMAP = '-y +x +z';
/** The same reference's `imu_upside_down: true`: placement P6 (0x21, 0x07). */
export const OPEN_DUCK_MINI_V2_UPSIDE_DOWN_REMAP = '-y -x -z';

/** CALIB_STAT (datasheet 4.3.54): 0 (not calibrated) to 3 (fully) each. */
export interface CalibrationStatus {
  readonly sys: number;
  readonly gyro: number;
  readonly acc: number;
  readonly mag: number;
}

export const decodeCalibration = (b: number): CalibrationStatus => ({ sys: (b >> 6) & 3, gyro: (b >> 4) & 3, acc: (b >> 2) & 3, mag: b & 3 });

/** SYS_STATUS (datasheet 4.3.58). */
export const SYS_STATUS_TEXT: readonly string[] = ['idle', 'system error', 'initialising peripherals', 'system initialising', 'executing self-test', 'sensor fusion running', 'running without fusion'];
/** SYS_ERR (datasheet 4.3.59), when SYS_STATUS says system error. */
export const SYS_ERR_TEXT: readonly string[] = [
  'no error',
  'peripheral initialisation error',
  'system initialisation error',
  'self-test failed',
  'register map value out of range',
  'register map address out of range',
  'register map write error',
  'low power mode not available for the selected operation mode',
  'accelerometer power mode not available',
  'fusion algorithm configuration error',
  'sensor configuration error',
];

export const modeName = (v: number): string => (Object.entries(MODE).find(([, m]) => m === (v & 0x0f))?.[0] ?? `0x${v.toString(16)}`);

/**
 * Calibration offsets as the chip reads them back in CONFIG mode (datasheet 3.6.4, 3.11): raw
 * LSB, as the reference runtime keeps them (its imu_calib_data.pkl). Only what is given is written.
 */
export interface CalibrationOffsets {
  readonly accelerometer?: readonly [number, number, number];
  readonly magnetometer?: readonly [number, number, number];
  readonly gyroscope?: readonly [number, number, number];
  readonly accelerometer_radius?: number;
  readonly magnetometer_radius?: number;
}

/** Each block to write, register and bytes, in the datasheet's order (a block takes effect on its last byte). */
export function encodeOffsets(o: CalibrationOffsets): { register: number; bytes: Uint8Array }[] {
  const blocks: { register: number; bytes: Uint8Array }[] = [];
  if (o.accelerometer !== undefined) blocks.push({ register: REG.ACC_OFFSET, bytes: encodeInt16s(o.accelerometer) });
  if (o.magnetometer !== undefined) blocks.push({ register: REG.MAG_OFFSET, bytes: encodeInt16s(o.magnetometer) });
  if (o.gyroscope !== undefined) blocks.push({ register: REG.GYR_OFFSET, bytes: encodeInt16s(o.gyroscope) });
  if (o.accelerometer_radius !== undefined) blocks.push({ register: REG.ACC_RADIUS, bytes: encodeInt16s([o.accelerometer_radius]) });
  if (o.magnetometer_radius !== undefined) blocks.push({ register: REG.MAG_RADIUS, bytes: encodeInt16s([o.magnetometer_radius]) });
  return blocks;
}
