/**
 * A feetech duck whose trunk IMU is a BNO055 (an `imu:` block), read in the twin through the
 * simulated chip's registers: the codec, the transactions and the remap are what the walk reads
 * through. It walks; the BNO055's wire coming loose mid-walk ends the verb in one line naming the
 * chip, torque off read back; a robot with no IMU configured refuses the motion verbs, saying so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createBusBody } from '../../../src/bodies/microduck/servo-bus/bus-body.js';
import type { Body } from '../../../src/bodies/body.js';
import { ServoTwinProcess } from '../../helpers/servo-twin-process.js';

type Intent = Parameters<Body['perform']>[0];
const walk = (metres: number): Intent => ({ verb: 'walk', args: { metres } }) as Intent;

describe('microduck:feetech with a BNO055', () => {
  let twin: ServoTwinProcess;
  let body: Body | undefined;
  before(async () => {
    twin = await ServoTwinProcess.start({ protocol: 'feetech' });
  });
  after(async () => {
    await body?.close();
    await twin?.close();
  });

  it('walks reading its trunk through the BNO055; the chip stopping mid-walk ends the verb in one line', async () => {
    body = await createBusBody('feetech', { seed: 1, settings: { port: twin.port, sim_imu: twin.imuPath, imu: {}, bus_timeout_ms: 100 } });
    const seen = await body.observe();
    assert.equal(seen.data?.['imu'], true, seen.summary);
    const start = await twin.trunk();
    const r = await body.perform(walk(0.5));
    assert.equal(r.ok, true, r.summary);
    const end = await twin.trunk();
    assert.ok(Math.hypot(end.x - start.x, end.y - start.y) > 0.05, `the twin moved (${start.x},${start.y} → ${end.x},${end.y})`);
    assert.ok(Math.abs(end.roll) < 0.5 && Math.abs(end.pitch) < 0.5, 'and is standing');

    const walking = body.perform(walk(3));
    await twin.untilGoalWrites(25);
    await twin.unplugImu();
    await assert.rejects(walking, (err: unknown) => {
      assert.ok(err instanceof Error);
      assert.match(err.message, /^walk on \S+: the BNO055 on i2c-1 at 0x28 stopped answering: EREMOTEIO: remote I\/O error; torque off: read back from every servo$/);
      return true;
    });
  });

  it('without an imu block (nor a simulator) a walk is refused, saying none is configured', async () => {
    await body?.close();
    body = await createBusBody('feetech', { seed: 1, settings: { port: twin.port, bus_timeout_ms: 100 } });
    const r = await body.perform(walk(0.5));
    assert.equal(r.ok, false);
    assert.equal(r.summary, "walk needs the trunk's IMU, and microduck:feetech reads none: none is configured (an imu: block in the robot's settings)");
  });
});
