/**
 * Why /dev/i2c-N would not open, in the words that fix it. Opening the bus is the kernel's
 * check of the user quackd runs as: EACCES when that user is not in the group owning the file
 * (`i2c` on Raspberry Pi OS and Jetson Linux), EPERM when a device policy refuses the device
 * whatever the user (a systemd unit with DevicePolicy=closed and no DeviceAllow=char-i2c). Pure:
 * the edge (i2c-bus-device.ts) says who the user is and which group owns the file.
 */
import { ImuNoAccessError } from './errors.js';
import { where } from './i2c-device.js';

export interface BusOwner {
  /** the user quackd runs as */
  readonly user: string;
  /** the group owning /dev/i2c-N, by name where /etc/group has it */
  readonly group: string | undefined;
}

/** The error for an open of bus `bus` refused with errno `code`, or undefined when `code` is no refusal. */
export function busRefusal(bus: number, address: number, code: unknown, owner: BusOwner): ImuNoAccessError | undefined {
  const path = `/dev/i2c-${bus}`;
  const at = where({ bus, address });
  if (code === 'EACCES') {
    // Membership counts from the next login, or the service's next start.
    const join = owner.group !== undefined ? `${owner.user} is not in its group, ${owner.group} (sudo usermod -aG ${owner.group} ${owner.user}, then log in again or restart the service)` : `${owner.user} may not read it (its group's members may)`;
    return new ImuNoAccessError(at, path, `permission denied: ${join}`);
  }
  if (code === 'EPERM') return new ImuNoAccessError(at, path, 'not permitted: a device policy refuses it (under systemd the unit needs DeviceAllow=char-i2c rw, as systemd/quackd.service has)');
  return undefined;
}
