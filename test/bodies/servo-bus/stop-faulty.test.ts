/**
 * A stop asked of a duck that cannot be opened still lands: with one servo silent or raising an
 * alarm, `quackd torque duck off` and `quackd do torque off` send torque off to every servo and
 * say which confirmed it, so the others stop holding. The built CLI against the servo simulator
 * at the far end of a pty, every servo's torque on as a killed quackd leaves it. Torque on
 * without a service is refused saying why in the servos' terms (Feetech's have no watchdog).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { BUS_SERVO_MODEL, OPEN_DUCK_MINI_V2 } from '../../../src/bodies/microduck/servo-bus/joint-table.js';
import { modelByName, type ServoModel } from '../../../src/servo-bus/models.js';
import type { ProtocolName } from '../../../src/servo-bus/packet.js';
import { assertFreshBuild, runCli } from '../../helpers/cli.js';
import { HeldPty } from '../../helpers/held-pty.js';
import { ServoSim } from '../../helpers/servo-sim.js';
import { tempDir } from '../../helpers/tmp.js';

/** An alarm in a reply's error byte: Feetech's overheat bit; Dynamixel's alert bit (its Hardware Error Status says which). */
const ALARM = { feetech: { bits: 0x04, word: 'overheat' }, dynamixel: { bits: 0x80, word: 'hardware error' } } as const;

for (const protocol of ['feetech', 'dynamixel'] as const satisfies readonly ProtocolName[]) {
  describe(`a stop on a ${protocol} duck with a servo at fault`, () => {
    const model = modelByName(BUS_SERVO_MODEL[protocol]) as ServoModel;
    const torqueAt = model.registers.torqueEnable.address;
    const homes = tempDir();
    let pty: HeldPty;
    let sim: ServoSim;
    let home: string;
    const env = (): NodeJS.ProcessEnv => ({ QUACKD_HOME: home, QUACKD_MEMORY_DIR: join(home, 'memory') });
    const torqueOf = (id: number): number | undefined => sim.table(id)[torqueAt];

    before(async () => {
      assertFreshBuild();
      pty = await new HeldPty('quackd-stop-').open();
    });
    beforeEach(() => {
      sim?.close();
      sim = ServoSim.open(pty.far, { protocol, servos: OPEN_DUCK_MINI_V2.map((j) => ({ id: j.id, model: model.name, registers: { [torqueAt]: 1 } })) });
      home = mkdtempSync(join(homes, 'home-'));
      writeFileSync(join(home, 'config.yaml'), `robots:\n  duck:\n    body: microduck:${protocol}\n    port: ${pty.near}\n    bus_timeout_ms: 100\n`);
    });
    after(async () => {
      sim?.close();
      await pty?.close();
    });

    it("quackd torque duck on without a service: refused in the servos' own terms, not a firmware's watchdog", async () => {
      const res = await runCli(['torque', 'duck', 'on', '--local', '--yes'], { env: env() });
      assert.equal(res.code, 2);
      const why = protocol === 'feetech' ? 'Feetech servos have no watchdog, and left on they would hold their last goal' : "the servos' Bus Watchdog would stop them 100 ms after it";
      assert.ok(res.stderr.startsWith(`quackd: torque: on needs a running quackd serve to hold duck's bus: quackd turns torque off as this command exits`), res.stderr);
      assert.ok(res.stderr.includes(why), res.stderr);
      assert.doesNotMatch(res.stderr, /firmware|heartbeat/);
      assert.deepEqual(sim.received, []);
    });

    it('quackd torque duck off with head_pitch (servo 31) silent: torque off reaches the other 13, and the line says so', async () => {
      sim.silence(31);
      const res = await runCli(['torque', 'duck', 'off', '--local'], { env: env() });
      assert.notEqual(res.code, 0);
      assert.match(res.stdout + res.stderr, /the servos on \S+ cannot be driven: head_pitch \(servo 31\) did not answer; torque off sent: confirmed on 13 servos, head_pitch \(servo 31\) did not answer · /);
      for (const j of OPEN_DUCK_MINI_V2.filter((j) => j.id !== 31)) assert.equal(torqueOf(j.id), 0, `${j.name}'s torque`);
    });

    it('quackd do torque off with left_knee (servo 23) raising an alarm: torque off reaches every servo, confirmed', async () => {
      sim.raise(23, ALARM[protocol].bits);
      const res = await runCli(['do', 'torque', 'off', '--robot', 'duck', '--yes'], { env: env() });
      assert.notEqual(res.code, 0);
      assert.match(res.stdout + res.stderr, new RegExp(`the servos on \\S+ cannot be driven: left_knee \\(servo 23\\) raised ${ALARM[protocol].word}; torque off sent: confirmed on all 14 servos · `));
      for (const j of OPEN_DUCK_MINI_V2) assert.equal(torqueOf(j.id), 0, `${j.name}'s torque`);
    });
  });
}
