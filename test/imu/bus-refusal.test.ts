/**
 * A BNO055 whose bus the user may not open is told apart from a silent chip: the line says who was
 * refused and what lets them in (the group that owns /dev/i2c-N, or the unit's DeviceAllow), not
 * to check the wiring. Through the device the real addon is wrapped in, over a bus whose transfers
 * fail as i2c-bus's do when the device file will not open (it opens it at the first transfer).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Bno055 } from '../../src/imu/bno055.js';
import { parseRemap, type AxisRemap } from '../../src/imu/bno055-codec.js';
import { busRefusal } from '../../src/imu/bus-refusal.js';
import { checkBno055 } from '../../src/imu/check.js';
import { ImuNoAccessError, ImuSilentError } from '../../src/imu/errors.js';
import { i2cDeviceOn, type BusTransfers } from '../../src/imu/i2c-bus-device.js';

const remap = parseRemap('+x +y +z') as AxisRemap;
const noSleep = () => Promise.resolve();

/** A bus whose device file does not open: each transfer fails as fs.open did, with `code`. */
function refusingBus(code: string, said: string): BusTransfers & { closed: boolean } {
  const fail = () => Promise.reject(Object.assign(new Error(`${code}: ${said}, open '/dev/i2c-1'`), { code }));
  return {
    closed: false,
    readI2cBlock: fail,
    writeByte: fail,
    close() {
      this.closed = true;
      return Promise.resolve();
    },
  };
}

const pi = { user: 'quackd', group: 'i2c' };
const ACCESS = "cannot open /dev/i2c-1 for the BNO055 (i2c-1 at 0x28): permission denied: quackd is not in its group, i2c (sudo usermod -aG i2c quackd, then log in again or restart the service)";

describe('a BNO055 on a bus the user may not open', () => {
  it('opening it says who is refused and which group lets them in', async () => {
    const device = i2cDeviceOn(refusingBus('EACCES', 'permission denied'), 1, 0x28, () => pi);
    await assert.rejects(Bno055.open(device, { remap }, { sleep: noSleep }), (err: unknown) => {
      assert.ok(err instanceof ImuNoAccessError, String(err));
      assert.equal(err.message, ACCESS);
      return true;
    });
  });

  it("health's imu line is the same one line", async () => {
    assert.deepEqual(await checkBno055(i2cDeviceOn(refusingBus('EACCES', 'permission denied'), 1, 0x28, () => pi)), { status: 'fail', detail: ACCESS });
  });

  it("a device policy's refusal (systemd's DevicePolicy) names the unit's DeviceAllow", async () => {
    const device = i2cDeviceOn(refusingBus('EPERM', 'operation not permitted'), 1, 0x28, () => ({ user: 'quackd', group: 'i2c' }));
    assert.deepEqual(await checkBno055(device), {
      status: 'fail',
      detail: 'cannot open /dev/i2c-1 for the BNO055 (i2c-1 at 0x28): not permitted: a device policy refuses it (under systemd the unit needs DeviceAllow=char-i2c rw, as systemd/quackd.service has)',
    });
  });

  it('a bus that is not there is still a chip nobody answers for', async () => {
    const device = i2cDeviceOn(refusingBus('ENOENT', 'no such file or directory'), 1, 0x28, () => pi);
    await assert.rejects(Bno055.open(device, { remap }, { sleep: noSleep }), (err: unknown) => {
      assert.ok(err instanceof ImuSilentError, String(err));
      assert.equal(err.message, "no BNO055 answers on i2c-1 at 0x28: ENOENT: no such file or directory, open '/dev/i2c-1'");
      return true;
    });
  });

  it('a file owned by a group /etc/group does not name is said by what the user lacks', () => {
    assert.equal(busRefusal(3, 0x29, 'EACCES', { user: 'pi', group: undefined })?.message, 'cannot open /dev/i2c-3 for the BNO055 (i2c-3 at 0x29): permission denied: pi may not read it (its group\'s members may)');
    assert.equal(busRefusal(3, 0x29, 'EIO', pi), undefined);
    assert.equal(busRefusal(3, 0x29, undefined, pi), undefined);
  });
});
