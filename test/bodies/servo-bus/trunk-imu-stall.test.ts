/**
 * A BNO055 whose read hangs (SCL held low: no error, no answer) as the bus plant reads it each
 * tick (trunk-imu.ts): the read counts as out from the tick that started it, so the plant holds
 * the duck without a reading once it is out longer than a late bus cycle, and at IMU_SILENT_MS
 * the IMU is at fault, named. Before, the trunk kept its last reading and a walk went on with a
 * frozen gyro and gravity, for good. A slow read that does come back is no fault.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IMU_SILENT_MS, openTrunkImu, type TrunkImu } from '../../../src/bodies/microduck/servo-bus/trunk-imu.js';
import { ImuSettingsSchema } from '../../../src/imu/settings.js';
import { FaultyBno055 } from '../../helpers/bno055-sim.js';
import { sleep } from '../../helpers/pty-pair.js';

async function opened(dev: FaultyBno055): Promise<TrunkImu> {
  const imu = await openTrunkImu({ imu: ImuSettingsSchema.parse({}), device: dev });
  assert.notEqual(typeof imu, 'string', String(imu));
  return imu as TrunkImu;
}

/** Ticks at 50 Hz for `ms`, as the plant does while a verb runs. */
async function tickFor(imu: TrunkImu, ms: number): Promise<void> {
  for (const until = performance.now() + ms; performance.now() < until; ) {
    imu.tick();
    await sleep(20);
  }
}

describe("the trunk's IMU when a read does not come back", () => {
  it('a hung read is out from the tick that started it, and at IMU_SILENT_MS the IMU is at fault, naming the chip', async () => {
    const dev = new FaultyBno055();
    dev.chip.setTrunk({ gyro: [0, 0, 0.5], gravity: [0, 0, -1] });
    const imu = await opened(dev);
    await tickFor(imu, 100);
    assert.ok(imu.latest() !== undefined, 'a reading before the hang');
    assert.equal(imu.outMs(performance.now()), 0, 'no read out between ticks');

    dev.delayBursts(Infinity);
    await tickFor(imu, 100);
    const out = imu.outMs(performance.now());
    assert.ok(out >= 60, `the hung read has been out ${out.toFixed(0)} ms`);
    assert.equal(imu.fault(), undefined, 'not yet a fault');

    await tickFor(imu, IMU_SILENT_MS);
    assert.match(imu.fault() ?? '', /^the BNO055 on i2c-1 at 0x28 stopped answering: a read has not come back in \d+ ms$/);
    assert.equal(imu.latest(), undefined, 'no reading from an IMU at fault');
    const bursts = dev.bursts;
    dev.answerAgain();
    await tickFor(imu, 100);
    assert.equal(dev.bursts, bursts + 1, 'the hung read came back, and no read was started after the fault');
    assert.ok(imu.fault() !== undefined, 'the fault stays: the chip was not to be trusted');
    await imu.close();
  });

  it('a read that comes back 60 ms late is out meanwhile, then answers: no fault, and the next read starts', async () => {
    const dev = new FaultyBno055();
    dev.chip.setTrunk({ gyro: [0, 0, 0], gravity: [0, 0, -1] });
    const imu = await opened(dev);
    await tickFor(imu, 60);
    dev.delayBursts(60);
    const before = dev.bursts;
    await tickFor(imu, 300);
    assert.ok(dev.bursts >= before + 3, `${dev.bursts - before} slow reads answered`);
    assert.equal(imu.fault(), undefined);
    dev.delayBursts(0);
    await tickFor(imu, 100);
    assert.ok(imu.latest() !== undefined);
    assert.ok(imu.outMs(performance.now()) < 20, 'nothing left out');
    await imu.close();
  });
});
