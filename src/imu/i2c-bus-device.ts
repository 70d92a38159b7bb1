/**
 * The I2cDevice of a real board: `/dev/i2c-N` through the `i2c-bus` addon, imported here and only
 * here, when the control worker opens the IMU (as the bus's serial port is opened there). The addon
 * is an optional dependency built at install: where it is missing, opening says so in one line.
 */
import { statSync } from 'node:fs';
import { userInfo } from 'node:os';
import type { PromisifiedBus } from 'i2c-bus';
import { groupName } from '../config/os-group.js';
import { busRefusal, type BusOwner } from './bus-refusal.js';
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
  return i2cDeviceOn(await openBus(bus), bus, address, () => ({ user: userName(), group: ownerGroup(`/dev/i2c-${bus}`) }));
}

/** The bus's transfers used by a device: what i2cDeviceOn needs of an opened `i2c-bus`. */
export type BusTransfers = Pick<PromisifiedBus, 'readI2cBlock' | 'writeByte' | 'close'>;

/**
 * The chip at `address` on an opened bus. i2c-bus opens the device file at the first transfer to
 * an address, so a refusal to open it (busRefusal) comes from a transfer: said as one, with who
 * was refused (`owner`, asked then).
 */
export function i2cDeviceOn(handle: BusTransfers, bus: number, address: number, owner: () => BusOwner): I2cDevice {
  const refused = (err: unknown): never => {
    throw busRefusal(bus, address, (err as NodeJS.ErrnoException | undefined)?.code, owner()) ?? err;
  };
  return {
    bus,
    address,
    async readBlock(register, length) {
      const buffer = Buffer.alloc(length);
      let bytesRead: number;
      try {
        ({ bytesRead } = await handle.readI2cBlock(address, register, length, buffer));
      } catch (err) {
        return refused(err);
      }
      return new Uint8Array(buffer.buffer, buffer.byteOffset, bytesRead);
    },
    writeByte: (register, value) => handle.writeByte(address, register, value).catch(refused),
    close: () => handle.close(),
  };
}

function userName(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? '?'}`;
  }
}

function ownerGroup(path: string): string | undefined {
  try {
    const gid = statSync(path).gid;
    return groupName(gid) ?? `gid ${gid}`;
  } catch {
    return undefined;
  }
}
