/**
 * One chip on an I²C bus, as the BNO055's transactions need it: read a block of registers, write
 * one. The real one is i2c-bus-device.ts (the `i2c-bus` addon, opened in the control worker);
 * the tests hand a simulated register file.
 */
export interface I2cDevice {
  /** `/dev/i2c-N`'s N. */
  readonly bus: number;
  /** The chip's 7-bit address. */
  readonly address: number;
  /** `length` bytes (at most 32, the SMBus block limit) from `register` on, in one transfer. */
  readBlock(register: number, length: number): Promise<Uint8Array>;
  writeByte(register: number, value: number): Promise<void>;
  close(): Promise<void>;
}

/** `i2c-1 at 0x28`: how a user finds the chip on the board. */
export const where = (d: { readonly bus: number; readonly address: number }): string => `i2c-${d.bus} at 0x${d.address.toString(16).padStart(2, '0')}`;
