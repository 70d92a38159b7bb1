/**
 * The servo-bus body's promises at its own surface, against the twin-backed simulator: opening
 * writes nothing to any servo (nothing moves because a process started); a stop mid-walk ends the
 * verb at once and says so; closing turns torque off on every servo, read back, the one exit path
 * that leaves a Feetech duck limp, and lets go of the port before it says it is closed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createBusBody } from '../../../src/bodies/microduck/servo-bus/bus-body.js';
import type { Body } from '../../../src/bodies/body.js';
import { modelByName } from '../../../src/servo-bus/models.js';
import { ServoTwinProcess } from '../../helpers/servo-twin-process.js';

describe('the microduck:feetech body', () => {
  let twin: ServoTwinProcess;
  let body: Body;
  const torqueAt = modelByName('STS3215')!.registers.torqueEnable.address;
  before(async () => {
    twin = await ServoTwinProcess.start({ protocol: 'feetech' });
    body = await createBusBody('feetech', { seed: 1, settings: { port: twin.port, sim_imu: twin.imuPath, bus_timeout_ms: 100 } });
  });
  after(async () => {
    await body?.close();
    await twin?.close();
  });

  it('opens without writing to any servo', async () => {
    assert.deepEqual(await twin.writes(), []);
    assert.ok((await twin.received()).some((r) => r.instruction === 'sync read'), 'it reads the joints');
  });

  it('a stop mid-walk ends the verb at once, saying it was stopped', async () => {
    const halt = new AbortController();
    const walking = body.perform({ verb: 'walk', args: { metres: 3 } } as Parameters<Body['perform']>[0], halt.signal);
    await twin.untilGoalWrites(25);
    const at = performance.now();
    halt.abort();
    const r = await walking;
    assert.equal(r.ok, false);
    assert.match(r.summary, /^walked \d+\.\d s: stopped$/);
    assert.ok(performance.now() - at < 1000, 'it ended within a second of the stop');
  });

  it('close turns torque off on every servo', async () => {
    for (const j of twin.joints) assert.equal((await twin.table(j.id))[torqueAt], 1, `${j.name}'s torque was on after the walk`);
    await body.close();
    for (const j of twin.joints) assert.equal((await twin.table(j.id))[torqueAt], 0, `${j.name}'s torque`);
    // The plant's last word, sent before its close ends (the worker waits for it): torque off to every servo at once.
    const last = (await twin.writes()).at(-1);
    assert.deepEqual(last && { id: last.id, instruction: last.instruction, params: last.params }, { id: 0xfe, instruction: 'write', params: [torqueAt, 0] });
  });

  it('once closed, its port is free: the same process opens the body again at once, five times over', async () => {
    // A service closes a body and opens it again (a robot released and taken back): the port's lock must go with the close.
    for (let i = 0; i < 5; i++) {
      const again = await createBusBody('feetech', { seed: 1, settings: { port: twin.port, sim_imu: twin.imuPath, bus_timeout_ms: 100 } });
      await again.close();
    }
  });
});
