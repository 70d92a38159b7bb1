/**
 * The simulated BNO055 (src/imu/sim-bno055.ts) with the faults a real bus has: a chip that does
 * not answer (Linux says EREMOTEIO for a missing ACK), another chip at the address, a chip
 * that stops answering after some reads, and one whose reads hang (SCL held low: no error, no
 * answer) or come back late. Every transfer is counted.
 */
import { REG } from '../../src/imu/bno055-codec.js';
import type { I2cDevice } from '../../src/imu/i2c-device.js';
import { SimBno055 } from '../../src/imu/sim-bno055.js';

export const NACK = 'EREMOTEIO: remote I/O error';

export interface FaultyBno055Options {
  /** Nothing answers at the address. */
  readonly silent?: boolean;
  /** What CHIP_ID reads (another chip at the address). */
  readonly chipId?: number;
  /** The burst reads (gyro through gravity) that succeed before every transfer fails. */
  readonly burstsBeforeFailing?: number;
}

export class FaultyBno055 implements I2cDevice {
  readonly chip: SimBno055;
  readonly writes: [number, number][] = [];
  bursts = 0;
  closed = false;
  private failing: boolean;
  /** Burst reads from now on answer after this many ms; Infinity: never. */
  private burstDelayMs = 0;
  private readonly held: (() => void)[] = [];

  constructor(private readonly o: FaultyBno055Options = {}) {
    this.chip = new SimBno055();
    this.failing = o.silent === true;
  }

  get bus(): number {
    return this.chip.bus;
  }
  get address(): number {
    return this.chip.address;
  }

  /** From now on every transfer fails, as when the wire comes loose. */
  unplug(): void {
    this.failing = true;
  }

  /** From now on each burst read answers `ms` later; Infinity: not at all, until answerAgain(). */
  delayBursts(ms: number): void {
    this.burstDelayMs = ms;
  }

  /** Reads answer at once again, the hung ones too. */
  answerAgain(): void {
    this.burstDelayMs = 0;
    for (const release of this.held.splice(0)) release();
  }

  async readBlock(register: number, length: number): Promise<Uint8Array> {
    if (this.failing) throw new Error(NACK);
    if (register === REG.GYR_DATA && this.burstDelayMs > 0) {
      const ms = this.burstDelayMs;
      await new Promise<void>((resolve) => (Number.isFinite(ms) ? setTimeout(resolve, ms) : this.held.push(resolve)));
    }
    if (register === REG.GYR_DATA) {
      if (this.o.burstsBeforeFailing !== undefined && this.bursts >= this.o.burstsBeforeFailing) {
        this.failing = true;
        throw new Error(NACK);
      }
      this.bursts++;
    }
    const bytes = await this.chip.readBlock(register, length);
    if (register === REG.CHIP_ID && this.o.chipId !== undefined) bytes[0] = this.o.chipId;
    return bytes;
  }

  async writeByte(register: number, value: number): Promise<void> {
    if (this.failing) throw new Error(NACK);
    this.writes.push([register, value]);
    await this.chip.writeByte(register, value);
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}
