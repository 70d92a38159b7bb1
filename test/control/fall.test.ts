/**
 * Falls, in lock-step (one read a tick, so the script of tilts is exact): three tilted ticks end
 * the verb as `failed — fell`, no skill output is sent after it, the safe state holds or goes
 * limp as set, a verb asked for while the duck is down is refused, and one after it has been
 * stood up again runs. The fall is published on the bus.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeVerb } from '../../src/control/skill.js';
import { skill, startRig } from './rig.js';

const RAMP = skill({ kind: 'ramp', velocity: 0.5 });
// Read 0 takes the hold pose; the verb ticks from read 1. Tilted (1 rad > π/4) from read 15 to 18.
const TILT = [
  { from: 15, rad: 1 },
  { from: 19, rad: 0 },
];

describe('falls', () => {
  it('ends the verb with failed — fell on the third tilted tick, and holds from there', async (t) => {
    const rig = await startRig(t, { tilt: TILT }, { mode: 'lockstep' });
    const falls: number[] = [];
    rig.events.on('control:fell', (e) => falls.push(e.tick));
    const fell = await rig.loop.run(RAMP);
    assert.equal(describeVerb(fell), 'failed — fell');
    assert.equal(fell.endTick, 17);
    // Still down at read 18, upright from 19: the next verb waits three ticks and is refused,
    const refused = await rig.loop.run(RAMP);
    assert.equal(describeVerb(refused), 'failed — fallen: the duck is down');
    assert.equal(refused.endTick, 20);
    // and the one after runs once the duck has been upright three ticks (read 21).
    const again = await rig.loop.run(skill({ kind: 'ramp', velocity: 0.5, durationMs: 100 }));
    assert.equal(again.outcome, 'done');
    const { sends } = await rig.log();
    assert.deepEqual(falls, [17]);
    const heldAt = sends.find((s) => s.read === 16)?.targets;
    assert.ok(heldAt !== undefined && (heldAt[0] ?? 0) > 0, 'the ramp moved before the fall');
    // Reads 17–21: the tick of the fall and the ones while down hold the last targets;
    // read 21 takes the hold pose afresh, and only then does the new ramp move anything.
    for (const s of sends.filter((x) => x.read >= 17 && x.read <= 21)) assert.deepEqual(s.targets, heldAt, `read ${s.read}`);
    assert.ok((sends.at(-1)?.targets[0] ?? 0) > (heldAt[0] ?? 0));
  });

  it('goes limp after a fall when set to, and sends nothing while down', async (t) => {
    const rig = await startRig(t, { tilt: [{ from: 8, rad: 1.2 }], canLimp: true }, { mode: 'lockstep', fall: { then: 'limp' } });
    const fell = await rig.loop.run(RAMP);
    assert.equal(describeVerb(fell), 'failed — fell');
    assert.equal((await rig.loop.run(RAMP)).outcome, 'failed');
    const log = await rig.log();
    assert.deepEqual(log.limps, [10]);
    assert.equal(log.reads, 14);
    assert.deepEqual(
      log.sends.filter((s) => s.read >= 10),
      [],
    );
  });

  it('uses its settings: a larger threshold ignores the same tilt', async (t) => {
    const rig = await startRig(t, { tilt: [{ from: 3, rad: 1 }] }, { mode: 'lockstep', fall: { tiltRad: 1.2 } });
    assert.equal((await rig.loop.run(skill({ kind: 'ramp', durationMs: 200 }))).outcome, 'done');
  });
});
