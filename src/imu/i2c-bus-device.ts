/**
 * The I2cDevice of a real board: `/dev/i2c-N` through the `i2c-bus` addon, imported here and only
 * here, when the control worker opens the IMU (as the bus's serial port is opened there). The addon
 * is an optional dependency built at install: where it is missing, opening says so in one line.
 */
import type { PromisifiedBus } from 'i2c-bus';
import { I2cAddonMissingError } from './errors.js';
import type { I2cDevice } from './i2c-device.js';

export async function openI2cDevice(bus: number, address: number): Promise<I2cDevice> {
  let openBus: (bus: number) => Promise<PromisifiedBus>;
  try {
    openBus = (await import('i2c-bus')).default.openPromisified;
  } catch (err) {
    throw new I2cAddonMissingError((err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '');
  }
  // Opening only opens the file; a missing /dev/i2c-N is told by the first read, naming the bus.
  const handle = await openBus(bus);
  return {
    bus,
    address,
    async readBlock(register, length) {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.readI2cBlock(address, register, length, buffer);
      return new Uint8Array(buffer.buffer, buffer.byteOffset, bytesRead);
    },
    writeByte: (register, value) => handle.writeByte(address, register, value),
    close: () => handle.close(),
  };
}
