/**
 * `quackd torque` on a simulator through the service: torque is the simulator's state, so the
 * switch behaves as on the duck (the status follows what the body reports) with no yes to ask,
 * since nothing physical moves; a body without torque is refused in one line.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startService, type Serving } from '../../src/service/lifecycle.js';
import { quackd } from '../helpers/quackd.js';

describe('quackd torque on a simulator in the service', () => {
  let home: string;
  let serving: Serving;
  const env = (): NodeJS.ProcessEnv => ({ QUACKD_HOME: home });

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'quackd-torque-sim-'));
    writeFileSync(join(home, 'config.yaml'), 'robots:\n  den: { body: microduck:sim2d }\n  desk: { body: reachy-mini:mock }\n');
    serving = await startService({ env: { QUACKD_HOME: home } });
  });
  after(async () => {
    await serving?.stop('the test');
    rmSync(home, { recursive: true, force: true });
  });

  it('switches off and on with no yes asked, and the status follows the body', async () => {
    const off = await quackd(['torque', 'den', 'off', '--json'], { env: env() });
    assert.equal(off.code, 0, off.stdout + off.stderr);
    assert.equal((JSON.parse(off.stdout) as { reason: string }).reason, 'did torque off (torque 0 = 0)');
    assert.equal(serving.service.status('den').torque, false);
    const on = await quackd(['torque', 'den', 'on'], { env: env() });
    assert.equal(on.code, 0, on.stdout + on.stderr);
    assert.match(on.stdout, /^ {2}1 {2}torque on +torque on: holding the current pose$/m);
    assert.equal(serving.service.status('den').torque, true);
    assert.deepEqual(await serving.service.memoryCounts(), {}, 'a torque switch is no episode to recall');
  });

  it('refuses a robot whose body has no torque, before the service runs anything', async () => {
    const r = await quackd(['torque', 'desk', 'off'], { env: env() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^quackd: torque: "torque" is not a verb of reachy-mini:mock/);
    assert.equal(serving.service.status('desk').lastOutcome, undefined);
    // A dashboard's switch (MQTT's torque command) asks the service itself: said of the robot, not as a line of a duck.
    await assert.rejects(serving.service.torque('desk', true), /^InputError: desk has no torque to switch: reachy-mini:mock has no torque verb$/);
    assert.equal(serving.service.status('desk').lastOutcome, undefined);
  });
});
