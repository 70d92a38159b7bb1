/**
 * The bus plant walking on a BNO055 whose read hangs (control-plant.ts, trunk-imu.ts): the
 * plant, ticked by hand at 50 Hz with targets that change each tick, gives the loop no reading
 * once the trunk's read has been out longer than a late bus cycle (LATE_READING_MS), counts
 * those ticks for the verb to say, and at IMU_SILENT_MS is at fault naming the chip. Before, it
 * went on handing out the last gyro and gravity read, a frozen trunk, for as long as the read
 * hung. The servos are the simulator's at the far end of a pty the test holds.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPlant, LATE_READING_MS, type BusFacts } from '../../../src/bodies/microduck/servo-bus/control-plant.js';
import { OPEN_DUCK_MINI_V2 } from '../../../src/bodies/microduck/servo-bus/joint-table.js';
import { IMU_SILENT_MS } from '../../../src/bodies/microduck/servo-bus/trunk-imu.js';
import type { Plant } from '../../../src/control/plant.js';
import { FaultyBno055 } from '../../helpers/bno055-sim.js';
import { HeldPty } from '../../helpers/held-pty.js';
import { sleep } from '../../helpers/pty-pair.js';
import { ServoSim } from '../../helpers/servo-sim.js';

const TICK_MS = 20;

describe('the bus plant on a BNO055 whose read hangs', () => {
  let pty: HeldPty;
  let sim: ServoSim;
  let plant: Plant;
  const dev = new FaultyBno055();

  before(async () => {
    pty = await new HeldPty('quackd-plant-imu-stall-').open();
    sim = ServoSim.open(pty.far, { protocol: 'feetech', servos: OPEN_DUCK_MINI_V2.map((j) => ({ id: j.id, model: 'STS3215' })) });
    dev.chip.setTrunk({ gyro: [0, 0, 0], gravity: [0, 0, -1] });
    plant = await createPlant({ port: pty.near, baud: 1_000_000, protocol: 'feetech', joints: OPEN_DUCK_MINI_V2.map((j) => ({ ...j })), channel: 'plant-imu-stall-test', timeoutMs: 100, imu: {} }, { imuDevice: dev });
  });

  after(async () => {
    await plant.close?.();
    sim.close();
    await pty.close();
  });

  const facts = () => plant.sense?.() as BusFacts;
  const home = OPEN_DUCK_MINI_V2.map((j) => Math.max(j.min, Math.min(j.max, 0)));
  /** A tick of a skill moving the duck: read, then targets that differ from the last. */
  let i = 0;
  const tick = () => {
    const frame = plant.read();
    plant.send?.(Float64Array.from(home, (v, k) => (k === 0 ? v + (++i % 2) * 1e-3 : v)));
    return frame;
  };

  it('no reading once the read is out longer than a late cycle, the ticks counted; the IMU at fault at IMU_SILENT_MS, named', async () => {
    let frames = 0;
    for (const until = performance.now() + 3000; performance.now() < until && frames < 10; await sleep(TICK_MS)) if (tick() !== undefined && facts().imu) frames++;
    assert.equal(frames, 10, 'walking on a trunk that answers');

    dev.delayBursts(Infinity);
    const hungAt = performance.now();
    let blindAt: number | undefined;
    let faultAt: number | undefined;
    for (; performance.now() - hungAt < IMU_SILENT_MS + 500 && faultAt === undefined; await sleep(TICK_MS)) {
      const frame = tick();
      if (frame === undefined) blindAt ??= performance.now() - hungAt;
      else assert.equal(blindAt, undefined, 'no reading again once the read was late');
      if (facts().fault !== null) faultAt = performance.now() - hungAt;
    }
    assert.ok(blindAt !== undefined && blindAt <= LATE_READING_MS + 3 * TICK_MS, `the loop got a frozen trunk until ${blindAt?.toFixed(0) ?? 'the end'} ms after the read hung`);
    const f = facts();
    assert.ok(f.late_since_mark.imu_ticks > 0 && f.late_since_mark.imu_out_ms > LATE_READING_MS, JSON.stringify(f.late_since_mark));
    assert.equal(f.late_since_mark.ticks, 0, 'the servos answered: no bus tick counted late');
    assert.ok(faultAt !== undefined && faultAt >= IMU_SILENT_MS, `the fault came at ${faultAt?.toFixed(0) ?? 'never'} ms`);
    assert.match(f.fault ?? '', /^the BNO055 on i2c-1 at 0x28 stopped answering: a read has not come back in \d+ ms$/);
    assert.equal(tick(), undefined, 'no reading from a plant at fault');
    dev.answerAgain();
  });
});
