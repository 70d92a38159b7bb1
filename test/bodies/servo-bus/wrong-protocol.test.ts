/**
 * A duck configured with the other protocol than its servos speak (`body: microduck:dynamixel` on
 * the Open Duck Mini's STS3215s), met through the built CLI against the servo simulator at the far
 * end of a pty: not one servo answers, and `quackd do` and `quackd health` say the bus once, with
 * the other protocol to try, as calibrate and bus scan do, instead of naming each of the 14 servos
 * twice. Nothing the Feetech servos could take as a write reaches them.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OPEN_DUCK_MINI_V2 } from '../../../src/bodies/microduck/servo-bus/joint-table.js';
import { assertFreshBuild, runCli } from '../../helpers/cli.js';
import { HeldPty } from '../../helpers/held-pty.js';
import { ServoSim } from '../../helpers/servo-sim.js';
import { tempDir } from '../../helpers/tmp.js';

describe('a duck set to the wrong protocol', () => {
  let pty: HeldPty;
  let sim: ServoSim;
  let env: NodeJS.ProcessEnv;
  const homes = tempDir();
  const bus = (): string => `no dynamixel servo answered on ${pty.near} at 1000000 baud (ids 10–14, 20–24, 30–33)`;
  const hint = (): string => `is it powered, and are they dynamixel servos? 'quackd bus scan --port ${pty.near} --protocol feetech --baud 1000000' tries the other protocol without a write`;

  before(async () => {
    assertFreshBuild();
    pty = await new HeldPty('quackd-wrong-protocol-').open();
    sim = ServoSim.open(pty.far, { protocol: 'feetech', servos: OPEN_DUCK_MINI_V2.map((j) => ({ id: j.id, model: 'STS3215' })) });
    const home = mkdtempSync(join(homes, 'home-'));
    writeFileSync(join(home, 'config.yaml'), `robots:\n  duck:\n    body: microduck:dynamixel\n    port: ${pty.near}\n`);
    env = { QUACKD_HOME: home, QUACKD_MEMORY_DIR: join(home, 'memory') };
  });
  after(async () => {
    sim?.close();
    await pty?.close();
  });

  it('quackd do walk: one line for the bus with the other protocol to try, exit 3, nothing written', async () => {
    const r = await runCli(['do', 'walk', '0.3', '--robot', 'duck', '--yes'], { env });
    assert.equal(r.code, 3, r.stdout + r.stderr);
    const outcome = r.stdout.split('\n').find((l) => l.startsWith('FAIL '));
    assert.equal(outcome?.replace(/ · 0 steps, 0 calls, .*$/, ''), `FAIL error — microduck:dynamixel: ${bus()} (${hint()})`);
    assert.doesNotMatch(r.stdout, /left_knee/, 'the bus, not each servo');
    assert.deepEqual(sim.writes(), []);
  });

  it("quackd health: the bus line says the same, fails, and reads no servo's pose", async () => {
    const r = await runCli(['health', '--robot', 'duck', '--json'], { env });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const lines = JSON.parse(r.stdout) as { check: string; status: string; detail: string }[];
    assert.deepEqual(
      lines.find((l) => l.check === 'bus'),
      { check: 'bus', status: 'fail', detail: `dynamixel at 1000000 baud on ${pty.near} · no dynamixel servo answered (ids 10–14, 20–24, 30–33): is it powered, and are they dynamixel servos? 'quackd bus scan --port ${pty.near} --protocol feetech --baud 1000000' tries the other protocol without a write` },
    );
    assert.equal(lines.find((l) => l.check === 'pose'), undefined);
    assert.deepEqual(sim.writes(), []);
  });
});
