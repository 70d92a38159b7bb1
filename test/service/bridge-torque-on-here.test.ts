/**
 * Torque switched on holds a bridge duck where it stands. A microduck:jsonrpc duck a `quackd serve`
 * holds (the built bin, a child) is let go with `quackd torque duck off`, a hand bends its left
 * knee, and `quackd torque duck on` takes it up again: the knee stays where the hand left it. Let
 * go and bent again, `quackd do walk` switches torque on and walks from where the knee stands: the
 * walk's first target for it (its recording's /joints/applied) is within one step of the bent knee,
 * never a step from the pose the loop held before torque off (the old code's: -0.205 rad for a knee
 * bent to -0.5, a jump only the firmware's own step limit cut short). The first case passed on the
 * old code too (the plant repeats no target it sent before), and guards the scenario as a builder
 * meets it. The host firmware over a pty, its joints a hand's (hand-plant.ts: a servo with torque
 * off stays where it is put).
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { HandPlant } from '../bridge/hand-plant.js';
import { Rig, missingTools, sleep } from '../bridge/rig.js';
import { assertFreshBuild, runCli, type CliResult } from '../helpers/cli.js';
import { readIndexed, type JointState } from '../helpers/mcap.js';
import { tempDir } from '../helpers/tmp.js';
import { startServe, type StoppableServing } from '../helpers/serve.js';

/** left_knee in the firmware's joint table (duck.c). */
const KNEE = 3;
/** Where the hand bends it: 0.5 rad, about 29°, from home's -0.005. */
const BENT = 0.5;
/** Float32 on the wire, and a servo that holds its goal: a hair either way. */
const TOLERANCE = 0.01;
/** One control period's travel at the firmware's max_vel (10 rad/s × 20 ms): the most a target may move in a tick. */
const STEP = 0.2;

describe('torque on through the service holds a bridge duck where it stands', { skip: missingTools() }, () => {
  const homes = tempDir();
  let hand: HandPlant;
  let rig: Rig;
  let home: string;
  let serving: StoppableServing | undefined;
  const cli = (args: readonly string[]): Promise<CliResult> => runCli(args, { env: { QUACKD_HOME: home }, timeoutMs: 60_000 });

  /** The knee's position every 20 ms for `ms`. */
  const watchKnee = async (ms: number): Promise<number[]> => {
    const seen: number[] = [];
    for (const end = performance.now() + ms; performance.now() < end; ) {
      seen.push(hand.position(KNEE));
      await sleep(20);
    }
    return seen;
  };

  before(async () => {
    assertFreshBuild();
    hand = new HandPlant(mkdtempSync(join(homes, 'plant-')));
    // A lenient watchdog, as the other tests on the rig have: a loaded machine's gap is not quackd's.
    rig = await Rig.start(['--plant', hand.file, '--watchdog-ms', '5000']);
    hand.start();
    home = mkdtempSync(join(homes, 'home-'));
    serving = await startServe(home, `robots:\n  duck: { body: microduck:jsonrpc, port: ${JSON.stringify(rig.hostPath)} }\nmqtt: false\n`);
  });
  after(async () => {
    const exited = await serving?.stop();
    await rig?.cleanup();
    hand?.close();
    assert.equal(exited?.code, 0, `quackd serve did not stop cleanly:\n${serving?.stderr().slice(-2000) ?? ''}`);
  });

  it('a knee bent by hand while torque was off stays bent when torque comes back on', async () => {
    const on = await cli(['torque', 'duck', 'on', '--yes']);
    assert.equal(on.code, 0, on.stdout + on.stderr);
    const stood = hand.position(KNEE);
    await sleep(500);

    const off = await cli(['torque', 'duck', 'off']);
    assert.equal(off.code, 0, off.stdout + off.stderr);
    await sleep(50);
    assert.equal(hand.torqueOn(KNEE), false);
    hand.move(KNEE, BENT);
    // The loop reads the bent knee while it is limp, as a duck standing in a builder's hands.
    await sleep(300);

    const again = await cli(['torque', 'duck', 'on', '--yes']);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    await sleep(50);
    assert.equal(hand.torqueOn(KNEE), true);
    const seen = await watchKnee(1000);
    assert.ok(
      seen.every((p) => Math.abs(p - BENT) <= TOLERANCE),
      `the knee stays where the hand left it (${BENT} rad), never driven back to where it stood (${stood.toFixed(3)}): ${seen.map((p) => p.toFixed(3)).join(' ')}`,
    );
  });

  it('a walk after torque off starts from the knee a hand bent, not from where it stood before', async () => {
    const off = await cli(['torque', 'duck', 'off']);
    assert.equal(off.code, 0, off.stdout + off.stderr);
    await sleep(50);
    hand.move(KNEE, -BENT);
    await sleep(300);

    const walk = await cli(['do', 'walk', '0.1', '--robot', 'duck', '--yes']);
    assert.equal(walk.code, 0, walk.stdout + walk.stderr);
    const runId = /transcript (\S+)$/m.exec(walk.stdout)?.[1];
    assert.ok(runId !== undefined, walk.stdout);
    const back = await readIndexed(join(home, 'recordings', `${runId}.mcap`));
    // The walk's first tick: the first the skill asked for targets on (a held tick records none).
    const stamp = (m: JointState | undefined): string => JSON.stringify(m?.header.stamp);
    const asked = (back.messages.get('/joints/target') ?? []) as JointState[];
    const applied = ((back.messages.get('/joints/applied') ?? []) as JointState[]).find((m) => stamp(m) === stamp(asked[0]));
    const first = applied?.position[applied.name.indexOf('left_knee')];
    assert.ok(first !== undefined, `the walk sent the knee no target: ${asked.length} asked`);
    assert.ok(Math.abs(first - -BENT) <= STEP + 1e-6, `the walk's first knee target (${first.toFixed(3)}) is a step at most from where the hand bent it (${-BENT})`);
  });
});
