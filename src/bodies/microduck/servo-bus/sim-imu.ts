/**
 * SIMULATION ONLY: the trunk's IMU as a simulator tells it, `{ gyro, gravity }` in the trunk frame
 * as the loop wants them (src/control/plant.ts SensorFrame), in a small file of fixed size the
 * simulator rewrites in place each physics step. The body reads it where a real duck reads its
 * BNO055 (trunk-imu.ts), each tick: so the record is binary and read with one pread into a buffer
 * kept for it (a few µs, nothing allocated unless it changed), not a JSON file parsed each tick
 * (~0.4 ms of a cold worker's tick: more than the bus cycle it stands beside, and more than a
 * real chip's read costs the worker, which is one request handed to libuv's pool).
 *
 * The record (little-endian): u32 sequence, u32 length of the error, u32 flags (bit 0: the chip
 * hangs; bit 1: an accelerometer reading is given), 9 × f64 gyro, gravity and accelerometer, the
 * error's UTF-8 bytes, the sequence again at the end. A
 * writer bumps the sequence each write; a reader that sees the two copies differ caught a write
 * half done and keeps what it had.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import type { Vec3 } from '../../../imu/bno055-codec.js';

export interface SimImuReading {
  readonly gyro: Vec3;
  readonly gravity: Vec3;
  /** m/s², trunk frame; absent: the simulator gave none. */
  readonly accel?: Vec3;
  /** Read through a simulated BNO055 (an `imu` block too): from now on its transfers fail with this. */
  readonly i2c_error?: string;
  /** Read through a simulated BNO055: from now on its transfers never come back (the chip holds the bus's clock). */
  readonly i2c_hang?: boolean;
}

const HEAD = 12;
const HANGS = 1;
const HAS_ACCEL = 2;
const VALUES = HEAD + 9 * 8;
const MAX_ERROR = 192;
/** Bytes in a record. */
const SIM_IMU_RECORD = VALUES + MAX_ERROR + 4;

/** The simulator's end: one positional write of the whole record each step. */
export class SimImuWriter {
  private readonly buffer = Buffer.alloc(SIM_IMU_RECORD);
  private readonly fd: number;
  private sequence = 0;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'w');
  }

  write(r: { readonly gyro: readonly number[]; readonly gravity: readonly number[]; readonly accel?: readonly number[] | undefined; readonly i2c_error?: string | undefined; readonly i2c_hang?: boolean | undefined }): void {
    const b = this.buffer;
    this.sequence = (this.sequence + 1) >>> 0;
    const error = Buffer.from(r.i2c_error ?? '', 'utf8').subarray(0, MAX_ERROR);
    b.fill(0);
    b.writeUInt32LE(this.sequence, 0);
    b.writeUInt32LE(error.length, 4);
    b.writeUInt32LE((r.i2c_hang === true ? HANGS : 0) | (r.accel !== undefined ? HAS_ACCEL : 0), 8);
    for (let i = 0; i < 3; i++) {
      b.writeDoubleLE(r.gyro[i] ?? 0, HEAD + i * 8);
      b.writeDoubleLE(r.gravity[i] ?? 0, HEAD + (3 + i) * 8);
      b.writeDoubleLE(r.accel?.[i] ?? 0, HEAD + (6 + i) * 8);
    }
    error.copy(b, VALUES);
    b.writeUInt32LE(this.sequence, SIM_IMU_RECORD - 4);
    writeSync(this.fd, b, 0, SIM_IMU_RECORD, 0);
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** The body's end: the newest whole record, decoded only when its sequence moved. */
export class SimImuReader {
  private readonly buffer = Buffer.alloc(SIM_IMU_RECORD);
  private fd: number | undefined;
  private sequence: number | undefined;
  private reading: SimImuReading | undefined;

  constructor(readonly path: string) {}

  /** The newest reading, or undefined while the file is missing or holds no whole record yet. */
  read(): SimImuReading | undefined {
    try {
      this.fd ??= openSync(this.path, 'r');
      const b = this.buffer;
      if (readSync(this.fd, b, 0, SIM_IMU_RECORD, 0) < SIM_IMU_RECORD) return this.reading;
      const sequence = b.readUInt32LE(0);
      if (sequence === this.sequence || sequence !== b.readUInt32LE(SIM_IMU_RECORD - 4)) return this.reading;
      const at = (i: number): number => b.readDoubleLE(HEAD + i * 8);
      const errorLength = Math.min(MAX_ERROR, b.readUInt32LE(4));
      const flags = b.readUInt32LE(8);
      this.sequence = sequence;
      this.reading = {
        gyro: [at(0), at(1), at(2)],
        gravity: [at(3), at(4), at(5)],
        ...((flags & HAS_ACCEL) !== 0 ? { accel: [at(6), at(7), at(8)] as Vec3 } : {}),
        ...(errorLength > 0 ? { i2c_error: b.toString('utf8', VALUES, VALUES + errorLength) } : {}),
        ...((flags & HANGS) !== 0 ? { i2c_hang: true } : {}),
      };
    } catch {
      // Missing or unreadable: what was read before stands (undefined before the first).
    }
    return this.reading;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
