/**
 * The twin's IMU record (sim-imu.ts), which the body reads each tick where a real duck reads its
 * BNO055: what the simulator wrote comes back whole, a record caught half written is never used
 * (the reading before it stands), and the IMU's wire coming loose, or its chip hanging, is told
 * through it.
 */
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SimImuReader, SimImuWriter } from '../../../src/bodies/microduck/servo-bus/sim-imu.js';

describe("the twin's IMU record", () => {
  const dir = mkdtempSync(join(tmpdir(), 'quackd-sim-imu-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads back what was written last, and nothing while the file is missing', () => {
    const path = join(dir, 'a.bin');
    const reader = new SimImuReader(path);
    assert.equal(reader.read(), undefined);
    const writer = new SimImuWriter(path);
    writer.write({ gyro: [0.1, -0.2, 0.3], gravity: [0, 0.6, -0.8] });
    assert.deepEqual(reader.read(), { gyro: [0.1, -0.2, 0.3], gravity: [0, 0.6, -0.8] });
    writer.write({ gyro: [0, 0, 1.5], gravity: [0, 0, -1], i2c_error: 'EREMOTEIO: remote I/O error' });
    assert.deepEqual(reader.read(), { gyro: [0, 0, 1.5], gravity: [0, 0, -1], i2c_error: 'EREMOTEIO: remote I/O error' });
    writer.write({ gyro: [0, 0, 0], gravity: [0, 0, -1], i2c_hang: true });
    assert.deepEqual(reader.read(), { gyro: [0, 0, 0], gravity: [0, 0, -1], i2c_hang: true });
    // The twin's accelerometer, when it gives one.
    writer.write({ gyro: [0, 0, 0], gravity: [0, 0, -1], accel: [0.25, -0.5, 9.75] });
    assert.deepEqual(reader.read(), { gyro: [0, 0, 0], gravity: [0, 0, -1], accel: [0.25, -0.5, 9.75] });
    writer.close();
    reader.close();
  });

  it('keeps the reading before a record caught half written', () => {
    const path = join(dir, 'b.bin');
    const writer = new SimImuWriter(path);
    writer.write({ gyro: [1, 2, 3], gravity: [0, 0, -1] });
    const reader = new SimImuReader(path);
    assert.deepEqual(reader.read()?.gyro, [1, 2, 3]);
    // The next record's head landed, its values and tail not yet.
    const fd = openSync(path, 'r+');
    const head = Buffer.alloc(8);
    head.writeUInt32LE(2, 0);
    writeSync(fd, head, 0, 8, 0);
    writeSync(fd, Buffer.alloc(8, 0xff), 0, 8, 8);
    closeSync(fd);
    assert.deepEqual(reader.read()?.gyro, [1, 2, 3]);
    writer.write({ gyro: [4, 5, 6], gravity: [0, 0, -1] });
    assert.deepEqual(reader.read()?.gyro, [4, 5, 6]);
    writer.close();
    reader.close();
  });
});
