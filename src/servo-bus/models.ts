/**
 * The servos quackd knows by model number, with the registers a body needs, from the vendors'
 * control tables: Feetech's STS/SCS memory tables (as FTServo_Python's sms_sts.py and scscl.py
 * name them) and ROBOTIS's X-series control tables (DynamixelSDK's control_table/*.model). A
 * register says where it is, how wide, how its sign is carried and what one unit is in SI, so a
 * body converts counts to radians in one place. Pure data and two small codecs.
 */
import type { ProtocolName } from './packet.js';

/** How a register carries a negative number: not at all, two's complement, or Feetech's magnitude + sign bit. */
export type Sign = 'unsigned' | 'twos' | { readonly signBit: number };

export interface Register {
  readonly address: number;
  readonly size: 1 | 2 | 4;
  readonly sign: Sign;
  /** One count in SI: rad, rad/s, A, V, °C, or a fraction of the maximum (load). */
  readonly unit: number;
}

export interface ServoRegisters {
  readonly modelNumber: Register;
  readonly firmware: Register;
  readonly id: Register;
  readonly baudRate: Register;
  readonly returnDelay: Register;
  readonly minPositionLimit: Register;
  readonly maxPositionLimit: Register;
  /** Feetech: position offset (sign bit 11, in EEPROM); Dynamixel: Homing Offset. */
  readonly positionOffset: Register;
  readonly torqueEnable: Register;
  readonly goalPosition: Register;
  readonly presentPosition: Register;
  readonly presentVelocity: Register;
  /** Feetech: load (0.1 % of max torque); Dynamixel XL430: load; XL330/XC330: current. */
  readonly presentLoad: Register;
  readonly presentVoltage: Register;
  readonly presentTemperature: Register;
  /** The servo's own limits (EEPROM): past them it raises its voltage or overheat alarm. */
  readonly temperatureLimit: Register;
  readonly maxVoltageLimit: Register;
  readonly minVoltageLimit: Register;
  /** Dynamixel only: Hardware Error Status (the details behind the status packet's alert bit). */
  readonly hardwareError?: Register;
  /** Dynamixel only: Bus Watchdog (20 ms a count; the servo stops when the bus goes quiet that long). */
  readonly busWatchdog?: Register;
  /** Feetech only: EEPROM lock (0 lets EEPROM registers such as the offset be written). */
  readonly lock?: Register;
}

export interface ServoModel {
  readonly protocol: ProtocolName;
  readonly number: number;
  readonly name: string;
  /** Byte order of multi-byte registers: STS and Dynamixel little-endian, SCS big-endian. */
  readonly byteOrder: 'le' | 'be';
  /** Encoder counts in one turn (the goal and present position's resolution). */
  readonly countsPerTurn: number;
  /** What presentLoad measures: a share of the maximum torque (unit 0.001), or current (unit 0.001 A). */
  readonly loadIs: 'load' | 'current';
  readonly registers: ServoRegisters;
}

const reg = (address: number, size: 1 | 2 | 4, unit = 1, sign: Sign = 'unsigned'): Register => ({ address, size, sign, unit });
const TURN = 2 * Math.PI;

/**
 * The Feetech memory table, STS and SCS alike but for the position's resolution and where the
 * EEPROM lock sits: STS 4096 counts a turn (speed in counts/s), SCS 1024 over 300°. Signed
 * registers are sign-magnitude.
 */
function feetechRegisters(count: number, lockAt: number): ServoRegisters {
  return {
    firmware: reg(0, 2),
    modelNumber: reg(3, 2),
    id: reg(5, 1),
    baudRate: reg(6, 1),
    returnDelay: reg(7, 1),
    minPositionLimit: reg(9, 2, count),
    maxPositionLimit: reg(11, 2, count),
    temperatureLimit: reg(13, 1),
    maxVoltageLimit: reg(14, 1, 0.1),
    minVoltageLimit: reg(15, 1, 0.1),
    positionOffset: reg(31, 2, count, { signBit: 11 }),
    torqueEnable: reg(40, 1),
    goalPosition: reg(42, 2, count, { signBit: 15 }),
    lock: reg(lockAt, 1),
    presentPosition: reg(56, 2, count, { signBit: 15 }),
    presentVelocity: reg(58, 2, count, { signBit: 15 }),
    presentLoad: reg(60, 2, 0.001, { signBit: 10 }),
    presentVoltage: reg(62, 1, 0.1),
    presentTemperature: reg(63, 1),
  };
}

/** Dynamixel X series (XL330, XC330, XL430, XM430): the shared control table; 0.229 rpm a velocity count. */
function xRegisters(): ServoRegisters {
  const count = TURN / 4096;
  return {
    modelNumber: reg(0, 2),
    firmware: reg(6, 1),
    id: reg(7, 1),
    baudRate: reg(8, 1),
    returnDelay: reg(9, 1),
    positionOffset: reg(20, 4, count, 'twos'),
    temperatureLimit: reg(31, 1),
    maxVoltageLimit: reg(32, 2, 0.1),
    minVoltageLimit: reg(34, 2, 0.1),
    maxPositionLimit: reg(48, 4, count),
    minPositionLimit: reg(52, 4, count),
    torqueEnable: reg(64, 1),
    hardwareError: reg(70, 1),
    busWatchdog: reg(98, 1, 0.02),
    goalPosition: reg(116, 4, count, 'twos'),
    presentLoad: reg(126, 2, 0.001, 'twos'),
    presentVelocity: reg(128, 4, 0.0239691227, 'twos'),
    presentPosition: reg(132, 4, count, 'twos'),
    presentVoltage: reg(144, 2, 0.1),
    presentTemperature: reg(146, 1),
  };
}

const sts = (number: number, name: string): ServoModel => ({ protocol: 'feetech', number, name, byteOrder: 'le', countsPerTurn: 4096, loadIs: 'load', registers: feetechRegisters(TURN / 4096, 55) });
const scs = (number: number, name: string): ServoModel => ({ protocol: 'feetech', number, name, byteOrder: 'be', countsPerTurn: 1024, loadIs: 'load', registers: feetechRegisters((300 / 360) * (TURN / 1024), 48) });
/** XL330 and XC330 report Present Current (1 mA a count) at 126; XL430 and XM430 Present Load (0.1 % a count) there. */
const x = (number: number, name: string, loadIs: 'load' | 'current'): ServoModel => ({ protocol: 'dynamixel', number, name, byteOrder: 'le', countsPerTurn: 4096, loadIs, registers: xRegisters() });

/**
 * Feetech model numbers as LeRobot's feetech tables give them (address 3, read as the series'
 * byte order); no public table gives the STS3032's, so it is known by its layout only (`bus scan`
 * shows its number with "unknown"). Dynamixel's from DynamixelSDK's control_table/dynamixel.model.
 */
export const SERVO_MODELS: readonly ServoModel[] = [
  sts(777, 'STS3215'),
  sts(2825, 'STS3250'),
  scs(1284, 'SCS0009'),
  x(1190, 'XL330-M077', 'current'),
  x(1200, 'XL330-M288', 'current'),
  x(1210, 'XC330-T181', 'current'),
  x(1220, 'XC330-T288', 'current'),
  x(1230, 'XC330-M181', 'current'),
  x(1240, 'XC330-M288', 'current'),
  x(1060, 'XL430-W250', 'load'),
  x(1090, '2XL430-W250', 'load'),
  x(1020, 'XM430-W350', 'load'),
  x(1030, 'XM430-W210', 'load'),
];

export function modelByNumber(protocol: ProtocolName, number: number): ServoModel | undefined {
  return SERVO_MODELS.find((m) => m.protocol === protocol && m.number === number);
}

export function modelByName(name: string): ServoModel | undefined {
  const want = name.toUpperCase();
  return SERVO_MODELS.find((m) => m.name === want);
}

/**
 * A Feetech servo's model from the two bytes at address 3, whose byte order depends on the series
 * it names: little-endian for STS, big-endian for SCS. Unknown: the little-endian number.
 */
export function feetechModelFromBytes(lo: number, hi: number): { readonly number: number; readonly model?: ServoModel } {
  const le = lo | (hi << 8);
  const be = (lo << 8) | hi;
  const asLe = modelByNumber('feetech', le);
  if (asLe?.byteOrder === 'le') return { number: le, model: asLe };
  const asBe = modelByNumber('feetech', be);
  if (asBe?.byteOrder === 'be') return { number: be, model: asBe };
  return { number: le };
}

/** A register's bytes as a signed or unsigned count. */
export function decodeRegister(r: Register, bytes: Uint8Array, order: 'le' | 'be' = 'le'): number {
  let raw = 0;
  for (let i = 0; i < r.size; i++) {
    const b = bytes[order === 'le' ? i : r.size - 1 - i] ?? 0;
    raw += b * 2 ** (8 * i);
  }
  if (r.sign === 'unsigned') return raw;
  if (r.sign === 'twos') return raw >= 2 ** (8 * r.size - 1) ? raw - 2 ** (8 * r.size) : raw;
  const bit = 2 ** r.sign.signBit;
  return raw >= bit ? -(raw % bit) : raw;
}

/** A count as the register's bytes. Throws RangeError when it does not fit: a bug or a bad offset. */
export function encodeRegister(r: Register, value: number, order: 'le' | 'be' = 'le'): Uint8Array {
  const v = Math.round(value);
  let raw: number;
  if (r.sign === 'unsigned') raw = v;
  else if (r.sign === 'twos') raw = v < 0 ? v + 2 ** (8 * r.size) : v;
  else {
    const bit = 2 ** r.sign.signBit;
    if (Math.abs(v) >= bit) throw new RangeError(`${v} does not fit a sign-magnitude register with sign bit ${r.sign.signBit}`);
    raw = v < 0 ? bit - v : v;
  }
  if (raw < 0 || raw >= 2 ** (8 * r.size)) throw new RangeError(`${value} does not fit a ${r.size}-byte register`);
  const out = new Uint8Array(r.size);
  for (let i = 0; i < r.size; i++) out[order === 'le' ? i : r.size - 1 - i] = Math.floor(raw / 2 ** (8 * i)) & 0xff;
  return out;
}
