/**
 * Torque switched on holds the duck where it stands. A Feetech duck a `quackd serve` holds (the
 * built bin, a child) is let go with `quackd torque duck off`, a hand moves its left knee, and
 * `quackd torque duck on` takes it up again: every goal written after that is where the knee now
 * stands, never the pose the loop held before it was let go (the loop's old targets were written
 * at once, unlimited: the knee snapped back). The servo simulator at the far end of a pty, its
 * registers set as a hand would leave them. Held so, the loop rests (src/control/pacing.ts): it
 * ticks when a hold read is due, and `quackd status` and `health` say so.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BUS_SERVO_MODEL, OPEN_DUCK_MINI_V2 } from '../../src/bodies/microduck/servo-bus/joint-table.js';
import { decodeRegister, encodeRegister, modelByName, type ServoModel } from '../../src/servo-bus/models.js';
import { assertFreshBuild, runCli, type CliResult } from '../helpers/cli.js';
import { HeldPty } from '../helpers/held-pty.js';
import { ServoSim } from '../helpers/servo-sim.js';
import { tempDir } from '../helpers/tmp.js';
import { startServe, type StoppableServing } from '../helpers/serve.js';

const KNEE = 23;
/** How far the hand moves the knee: 300 counts, about 26°. */
const MOVED = 300;

describe('torque on through the service holds the duck where it stands', () => {
  const model = modelByName(BUS_SERVO_MODEL.feetech) as ServoModel;
  const r = model.registers;
  const centre = model.countsPerTurn / 2;
  const homes = tempDir();
  let pty: HeldPty;
  let sim: ServoSim;
  let home: string;
  let serving: StoppableServing | undefined;
  /** Every goal written to the knee, in counts, in order. */
  const kneeGoals: number[] = [];
  const cli = (args: readonly string[]): Promise<CliResult> => runCli(args, { env: { QUACKD_HOME: home }, timeoutMs: 60_000 });
  const torqueOf = (id: number): number | undefined => sim.table(id)[r.torqueEnable.address];

  before(async () => {
    assertFreshBuild();
    pty = await new HeldPty('quackd-torque-here-').open();
    sim = ServoSim.open(pty.far, {
      protocol: 'feetech',
      servos: OPEN_DUCK_MINI_V2.map((j) => ({ id: j.id, model: model.name })),
      onWrite: (id, address, data) => {
        if (id === KNEE && address === r.goalPosition.address && data.length >= r.goalPosition.size) kneeGoals.push(decodeRegister(r.goalPosition, data.subarray(0, r.goalPosition.size), model.byteOrder));
      },
    });
    home = mkdtempSync(join(homes, 'home-'));
    serving = await startServe(home, `robots:\n  duck: { body: microduck:feetech, port: ${JSON.stringify(pty.near)}, bus_timeout_ms: 100 }\nmqtt: false\n`);
  });
  after(async () => {
    const exited = await serving?.stop();
    sim?.close();
    await pty?.close();
    assert.equal(exited?.code, 0, `quackd serve did not stop cleanly:\n${serving?.stderr().slice(-2000) ?? ''}`);
  });

  it('a knee moved by hand while torque was off is held where it was moved to, not driven back', async () => {
    const on = await cli(['torque', 'duck', 'on', '--yes']);
    assert.equal(on.code, 0, on.stdout + on.stderr);
    await new Promise((res) => setTimeout(res, 500));
    assert.ok(kneeGoals.length > 0 && kneeGoals.every((g) => Math.abs(g - centre) <= 1), `held where it stood: ${kneeGoals.join(' ')}`);

    const off = await cli(['torque', 'duck', 'off']);
    assert.equal(off.code, 0, off.stdout + off.stderr);
    assert.equal(torqueOf(KNEE), 0);
    // A hand bends the knee while it is limp; the servo reads where it now is.
    sim.table(KNEE).set(encodeRegister(r.presentPosition, centre + MOVED, model.byteOrder), r.presentPosition.address);
    await new Promise((res) => setTimeout(res, 300));

    const before = kneeGoals.length;
    const again = await cli(['torque', 'duck', 'on', '--yes']);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.equal(torqueOf(KNEE), 1);
    // Two seconds of holding: twenty bus cycles (and as many resting ticks).
    await new Promise((res) => setTimeout(res, 2000));
    const since = kneeGoals.slice(before);
    assert.ok(since.length > 0, 'torque on writes the goals first');
    assert.ok(since.every((g) => Math.abs(g - (centre + MOVED)) <= 1), `every goal after torque on is where the knee stands (${centre + MOVED}), never where it was (${centre}): ${since.join(' ')}`);
  });

  it('a held duck rests: its loop ticks when a hold read is due, and status and health say so', async () => {
    const reads = () => sim.received.filter((x) => x.instruction === 'sync read').length;
    const first = reads();
    await new Promise((res) => setTimeout(res, 2000));
    // Resting still reads every 100 ms: about twenty cycles in 2 s.
    const cycles = reads() - first;
    assert.ok(cycles >= 14 && cycles <= 24, `${cycles} sync reads in 2 s of holding`);
    const status = await cli(['status', '--json']);
    assert.equal(status.code, 0, status.stdout + status.stderr);
    const loop = (JSON.parse(status.stdout) as { robots: { robot: string; loop?: { hz: number; restingMs?: number; state: string } }[] }).robots.find((x) => x.robot === 'duck')?.loop;
    assert.ok(loop !== undefined && loop.state === 'holding' && loop.restingMs === 100, `loop: ${JSON.stringify(loop)}`);
    assert.ok(loop.hz >= 8 && loop.hz <= 12.5, `a resting loop at ${loop.hz} Hz`);
    const words = await cli(['status']);
    assert.match(words.stdout, /loop\s+\d+\.\d of 10 Hz, resting \(50 when moving\) · 0 missed/);
    const health = await cli(['health', '--json']);
    const line = (JSON.parse(health.stdout) as { check: string; status: string; detail: string }[]).find((x) => x.check === 'loop duck');
    assert.equal(line?.status, 'ok', `health: ${health.stdout}`);
  });
});
