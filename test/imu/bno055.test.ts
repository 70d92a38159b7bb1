/**
 * The BNO055's transactions over a simulated register file (test/helpers/bno055-sim.ts): set up
 * as the Open Duck Mini v2 reference runtime sets it (IMUPLUS, its remap), one burst a tick, the
 * trunk's own axes back through the remap; a chip that does not answer, a wrong chip, and a read
 * that fails later each one line naming the bus and the address.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { trunkReading } from '../../src/bodies/microduck/servo-bus/trunk-imu.js';
import { Bno055, readStatus } from '../../src/imu/bno055.js';
import { MODE, REG, parseRemap, type AxisRemap } from '../../src/imu/bno055-codec.js';
import { ImuLostError, ImuSilentError, ImuWrongChipError } from '../../src/imu/errors.js';
import { ImuSettingsSchema } from '../../src/imu/settings.js';
import { checkBno055 } from '../../src/imu/check.js';
import { FaultyBno055 } from '../helpers/bno055-sim.js';

const noSleep = (): Promise<void> => Promise.resolve();
const defaults = ImuSettingsSchema.parse({});
const remap = parseRemap(defaults.remap) as AxisRemap;

describe('BNO055 over I²C', () => {
  it('the Open Duck Mini v2 defaults: bus 1, 0x28, its remap; reset, remap and offsets in CONFIG mode, then IMUPLUS', async () => {
    assert.deepEqual(defaults, { bus: 1, address: 0x28, remap: '-y +x +z' });
    const dev = new FaultyBno055();
    await Bno055.open(dev, { remap, offsets: { gyroscope: [-2, 1, 0] } }, { sleep: noSleep });
    const modes = dev.writes.filter(([r]) => r === REG.OPR_MODE).map(([, v]) => v);
    assert.deepEqual(modes, [MODE.CONFIG, MODE.IMUPLUS]);
    const at = (reg: number): number => dev.writes.findIndex(([r]) => r === reg);
    const imuplus = dev.writes.findIndex(([r, v]) => r === REG.OPR_MODE && v === MODE.IMUPLUS);
    assert.ok(at(REG.SYS_TRIGGER) < at(REG.AXIS_MAP_CONFIG), 'reset before the remap');
    assert.ok(at(REG.AXIS_MAP_SIGN) < imuplus && at(REG.GYR_OFFSET + 5) < imuplus, 'remap and offsets before IMUPLUS');
    assert.deepEqual(dev.chip.remapBytes(), { config: 0x21, sign: 0x04 });
    assert.deepEqual([...dev.chip.registers.subarray(REG.GYR_OFFSET, REG.GYR_OFFSET + 6)], [0xfe, 0xff, 0x01, 0x00, 0x00, 0x00]);
  });

  it('one burst a read gives the trunk its own axes back, through the chip mounted as the duck has it', async () => {
    const dev = new FaultyBno055();
    const chip = await Bno055.open(dev, { remap }, { sleep: noSleep });
    // Pitched nose-down a little, yawing left at 1 rad/s.
    const gravity = [0.2, 0, -Math.sqrt(1 - 0.04)];
    dev.chip.setTrunk({ gyro: [0.1, -0.2, 1], gravity });
    const before = dev.bursts;
    const t = trunkReading(await chip.read());
    assert.equal(dev.bursts - before, 1);
    assert.ok(t !== undefined);
    t.gyro.forEach((v, i) => assert.ok(Math.abs(v - ([0.1, -0.2, 1][i] ?? 0)) < 0.002, `gyro ${t.gyro.join()}`));
    t.gravity.forEach((v, i) => assert.ok(Math.abs(v - (gravity[i] ?? 0)) < 0.002, `gravity ${t.gravity.join()}`));
    // At rest the accelerometer reads gravity's reaction; speeding up forward adds to its x.
    const still = t.accel ?? [];
    still.forEach((v, i) => assert.ok(Math.abs(v + 9.80665 * (gravity[i] ?? 0)) < 0.02, `accelerometer at rest ${still.join()}`));
    const accel = [1.5 + 9.80665 * -0.2, -0.3, 9.80665 * Math.sqrt(1 - 0.04)];
    dev.chip.setTrunk({ gyro: [0.1, -0.2, 1], gravity, accel });
    const a = trunkReading(await chip.read())?.accel ?? [];
    assert.equal(a.length, 3);
    a.forEach((v, i) => assert.ok(Math.abs(v - (accel[i] ?? 0)) < 0.02, `accelerometer ${a.join()} for ${accel.join()}`));
    // The chip's default remap (a config that left it out) would not: x and y come back swapped.
    const plain = new FaultyBno055();
    const wrong = await Bno055.open(plain, { remap: parseRemap('+x +y +z') as AxisRemap }, { sleep: noSleep });
    plain.chip.setTrunk({ gyro: [0.1, -0.2, 1], gravity });
    const w = trunkReading(await wrong.read());
    assert.ok(w !== undefined && Math.abs(w.gyro[0] - 0.1) > 0.1);
  });

  it('status: the mode, calibration sys/gyro/acc/mag and the system state, read without a write', async () => {
    const dev = new FaultyBno055();
    assert.deepEqual(await readStatus(dev), { mode: 'CONFIG', calibration: { sys: 0, gyro: 0, acc: 0, mag: 0 }, system: 'idle' });
    await Bno055.open(dev, { remap }, { sleep: noSleep });
    dev.chip.calibration = 0b01_00_11_00;
    const writes = dev.writes.length;
    assert.deepEqual(await readStatus(dev), { mode: 'IMUPLUS', calibration: { sys: 1, gyro: 0, acc: 3, mag: 0 }, system: 'sensor fusion running' });
    assert.equal(dev.writes.length, writes);
  });

  it('the health verdict: a warning before any run set the chip up and while the gyro is uncalibrated, ok once it is', async () => {
    const dev = new FaultyBno055();
    assert.deepEqual(await checkBno055(dev), { status: 'warn', detail: 'BNO055 on i2c-1 at 0x28 answers, in CONFIG mode: no run has set it up since power-on, so it is calibrating nothing' });
    await Bno055.open(dev, { remap }, { sleep: noSleep });
    dev.chip.calibration = 0b00_00_01_00;
    assert.deepEqual(await checkBno055(dev), {
      status: 'warn',
      detail: 'BNO055 on i2c-1 at 0x28 answers (IMUPLUS, sensor fusion running): calibration sys 0 gyro 0 acc 1 mag 0; the gyro is not calibrated yet: keep the duck still a few seconds',
    });
    dev.chip.calibration = 0b11_11_11_00;
    assert.equal((await checkBno055(dev)).status, 'ok');
    assert.deepEqual(await checkBno055(new FaultyBno055({ silent: true })), { status: 'fail', detail: 'no BNO055 answers on i2c-1 at 0x28: EREMOTEIO: remote I/O error' });
  });

  it('a chip that does not answer, and another chip at the address, are told apart in one line naming the bus and the address', async () => {
    await assert.rejects(Bno055.open(new FaultyBno055({ silent: true }), { remap }, { sleep: noSleep }), (err: unknown) => {
      assert.ok(err instanceof ImuSilentError);
      assert.equal(err.message, 'no BNO055 answers on i2c-1 at 0x28: EREMOTEIO: remote I/O error');
      return true;
    });
    const other = new FaultyBno055({ chipId: 0x68 });
    await assert.rejects(Bno055.open(other, { remap }, { sleep: noSleep }), (err: unknown) => {
      assert.ok(err instanceof ImuWrongChipError);
      assert.equal(err.message, 'the chip on i2c-1 at 0x28 is not a BNO055 (chip id 0x68, a BNO055 says 0xa0)');
      return true;
    });
    // Nothing was written to a chip that is not a BNO055.
    assert.deepEqual(other.writes, []);
  });

  it('a read that fails after setup is ImuLostError naming the chip', async () => {
    const dev = new FaultyBno055({ burstsBeforeFailing: 2 });
    const chip = await Bno055.open(dev, { remap }, { sleep: noSleep });
    await chip.read();
    await chip.read();
    await assert.rejects(chip.read(), (err: unknown) => err instanceof ImuLostError && err.message === 'the BNO055 on i2c-1 at 0x28 stopped answering: EREMOTEIO: remote I/O error');
  });

  it('the imu settings: a remap naming an axis twice, an address off the bus, a non-integer offset are refused', () => {
    const problem = (v: unknown): string => {
      const r = ImuSettingsSchema.safeParse(v);
      return r.success ? '' : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    };
    assert.match(problem({ remap: '+x +x +z' }), /^remap: .*names a chip axis twice/);
    assert.match(problem({ address: 0x80 }), /^address: /);
    assert.match(problem({ offsets: { gyroscope: [1.5, 0, 0] } }), /^offsets\.gyroscope\.0: /);
    assert.match(problem({ offsets: { gyro: [0, 0, 0] } }), /gyro/);
    assert.equal(ImuSettingsSchema.parse({ address: '0x29' }).address, 0x29);
  });
});
