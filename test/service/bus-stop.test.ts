/**
 * `quackd stop` on a Feetech duck the service holds (the twin-backed servo simulator on a pty):
 * halted, its servos would hold their pose with torque on, so an emergency stop switches every
 * servo off and reads it back; a servo that does not answer is named and the stop exits 3. A
 * robot whose body is not open (its adapter pulled) is not answered "stopped" either.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { modelByName } from '../../src/servo-bus/models.js';
import { startService, type Serving } from '../../src/service/lifecycle.js';
import { quackd } from '../helpers/quackd.js';
import { ServoTwinProcess } from '../helpers/servo-twin-process.js';

const TORQUE = modelByName('STS3215')!.registers.torqueEnable.address;

describe('an emergency stop on a servo-bus duck the service holds', () => {
  let twin: ServoTwinProcess;
  let home: string;
  let serving: Serving | undefined;
  const torques = async (): Promise<number[]> => Promise.all(twin.joints.map(async (j) => (await twin.table(j.id))[TORQUE] ?? -1));
  const torqueOn = async (): Promise<void> => {
    const on = await serving!.service.torque('odd', true, 'yes');
    await on.torque;
    assert.deepEqual(new Set(await torques()), new Set([1]), 'torque on, on every servo');
  };

  before(async () => {
    twin = await ServoTwinProcess.start({ protocol: 'feetech' });
    home = mkdtempSync(join(tmpdir(), 'quackd-bus-stop-'));
    writeFileSync(join(home, 'config.yaml'), `robots:\n  odd: { body: microduck:feetech, port: ${JSON.stringify(twin.port)}, sim_imu: ${JSON.stringify(twin.imuPath)}, bus_timeout_ms: 100 }\nmqtt: false\n`);
    serving = await startService({ env: { QUACKD_HOME: home } });
  });
  after(async () => {
    await serving?.stop('the test');
    await twin?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('switches every servo off, read back, and says stopped', async () => {
    await torqueOn();
    const r = await quackd(['stop', 'odd'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'stopped odd\n');
    assert.deepEqual(new Set(await torques()), new Set([0]));
  });

  it('names a servo that does not answer, exits 3, and still switches the others off', async () => {
    await torqueOn();
    await twin.silence(31);
    const r = await quackd(['stop', 'odd'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.match(r.stderr, /^quackd: odd: its body did not confirm the stop: microduck:feetech on \S+: torque off not confirmed: head_pitch \(servo 31\) did not answer\n$/);
    const after = await torques();
    assert.deepEqual(new Set(twin.joints.filter((j) => j.id !== 31).map((j) => after[twin.joints.indexOf(j)])), new Set([0]));
  });
});
