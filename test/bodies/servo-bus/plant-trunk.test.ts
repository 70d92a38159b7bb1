/**
 * When the bus plant reads the trunk (control-plant.ts): each tick while the loop sends new
 * targets (a policy walking needs the trunk of now), every HOLD_READ_MS (100 ms) while it holds a
 * pose, so a held duck's tilt is still seen within about a tenth of a second. The plant runs in
 * this test's thread, ticked by hand at 50 Hz, on the servo simulator at the far end of a pty
 * it holds itself (held-pty.ts); the trunk is the simulator's IMU file, which the test writes.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createPlant } from '../../../src/bodies/microduck/servo-bus/control-plant.js';
import { OPEN_DUCK_MINI_V2 } from '../../../src/bodies/microduck/servo-bus/joint-table.js';
import { SimImuWriter } from '../../../src/bodies/microduck/servo-bus/sim-imu.js';
import type { Plant, SensorFrame } from '../../../src/control/plant.js';
import { HeldPty } from '../../helpers/held-pty.js';
import { sleep } from '../../helpers/pty-pair.js';
import { ServoSim } from '../../helpers/servo-sim.js';

const UPRIGHT = { gyro: [0, 0, 0], gravity: [0, 0, -1] };
const TILTED = { gyro: [0, 0.5, 0], gravity: [0.5, 0, -Math.sqrt(0.75)] };
const TICK_MS = 20;

describe('the bus plant reads the trunk', () => {
  let pty: HeldPty;
  let sim: ServoSim;
  let imu: SimImuWriter;
  let plant: Plant;

  before(async () => {
    pty = await new HeldPty('quackd-plant-trunk-').open();
    sim = ServoSim.open(pty.far, { protocol: 'feetech', servos: OPEN_DUCK_MINI_V2.map((j) => ({ id: j.id, model: 'STS3215' })) });
    imu = new SimImuWriter(join(pty.dir, 'imu'));
    imu.write(UPRIGHT);
    plant = await createPlant({ port: pty.near, baud: 1_000_000, protocol: 'feetech', joints: OPEN_DUCK_MINI_V2.map((j) => ({ ...j })), channel: 'plant-trunk-test', timeoutMs: 100, simImu: imu.path });
  });

  after(async () => {
    await plant.close?.();
    imu.close();
    sim.close();
    await pty.close();
  });

  /**
   * Ticks (read, then `send` when given) until `seen` holds of a frame: the ms it took (Infinity if
   * never) and the longest gap between two ticks (a loaded machine's timers run late).
   */
  async function tickUntil(seen: (f: SensorFrame) => boolean, limitMs: number, send?: (i: number) => Float64Array): Promise<{ took: number; gap: number }> {
    const t0 = performance.now();
    let [last, gap] = [t0, 0];
    for (let i = 0; performance.now() - t0 < limitMs; i++) {
      const now = performance.now();
      [gap, last] = [Math.max(gap, now - last), now];
      const frame = plant.read();
      if (frame !== undefined && seen(frame)) return { took: performance.now() - t0, gap };
      if (send !== undefined) plant.send?.(send(i));
      await sleep(TICK_MS);
    }
    return { took: Number.POSITIVE_INFINITY, gap };
  }
  const upright = (f: SensorFrame) => Math.abs(f.gravity[0]) < 1e-9;
  const tilted = (f: SensorFrame) => Math.abs(f.gravity[0] - 0.5) < 1e-9;

  it('holding, a tilt is seen within a tenth of a second and a tick', async () => {
    assert.ok((await tickUntil(upright, 3000)).took < 3000, 'the first reading came');
    for (let round = 0; round < 5; round++) {
      imu.write(round % 2 === 0 ? TILTED : UPRIGHT);
      const { took, gap } = await tickUntil(round % 2 === 0 ? tilted : upright, 1000);
      // By the first tick 100 ms after the last read: at most 100 ms and one tick (as late as this machine's ticks came).
      assert.ok(took <= 100 + gap + 5, `round ${round}: the trunk's change was seen after ${took.toFixed(0)} ms (ticks up to ${gap.toFixed(0)} ms apart)`);
    }
  });

  it('holding, the trunk is read at most every 100 ms; moving, at every tick', async () => {
    await tickUntil(upright, 1000);
    imu.write(UPRIGHT);
    // Unread for longer than the hold period: this read reads the trunk; a change written right
    // after it waits for the next read, not the next tick.
    await sleep(150);
    assert.ok(plant.read() !== undefined);
    imu.write(TILTED);
    const frame = plant.read();
    assert.ok(frame !== undefined && upright(frame), 'read again within the hold period');
    const { took: held } = await tickUntil(tilted, 1000);
    assert.ok(held >= 40, `holding, the tilt came at the next read (${held.toFixed(0)} ms), not the next tick`);
    // Targets that change each tick (a skill moving the duck): every tick reads the newest trunk.
    const home = OPEN_DUCK_MINI_V2.map((j) => Math.max(j.min, Math.min(j.max, 0)));
    const moving = (i: number) => Float64Array.from(home, (v, k) => (k === 0 ? v + (i % 2) * 1e-3 : v));
    await tickUntil(() => false, 3 * TICK_MS, moving);
    for (let round = 0; round < 4; round++) {
      imu.write(round % 2 === 0 ? UPRIGHT : TILTED);
      plant.send?.(moving(round + 1));
      const frame = plant.read();
      assert.ok(frame !== undefined && (round % 2 === 0 ? upright(frame) : tilted(frame)), `moving, round ${round}: the tick read the trunk written before it`);
      await sleep(TICK_MS);
    }
  });
});
