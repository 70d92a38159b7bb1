/**
 * A verb's first skill never stalls the loop on loading its module: the modules a body names in
 * `warm` are imported in the worker before its first tick. Counts only (missed slots), no timings.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ControlStats } from '../../src/control/stats.js';
import { startRig, type Rig } from './rig.js';

const HEAVY = new URL('./heavy-skill.ts', import.meta.url).href;

/** Runs one short verb of the heavy module's ramp skill, and returns the loop's stats once it has closed. */
async function firstVerb(rig: Rig): Promise<ControlStats> {
  let last: ControlStats | undefined;
  rig.events.on('control:stats', (e) => (last = e.stats));
  const result = await rig.loop.run({ module: HEAVY, options: { kind: 'ramp', velocity: 0.1, durationMs: 200 } });
  assert.equal(result.outcome, 'done', JSON.stringify(result));
  await rig.log();
  assert.ok(last !== undefined && last.state === 'closed', `final stats: ${JSON.stringify(last)}`);
  return last;
}

describe('warming a body\'s skill modules', () => {
  it('without it, the first verb\'s module load blocks the ticking loop (the hazard)', async (t) => {
    const stats = await firstVerb(await startRig(t));
    assert.ok(stats.missed >= 2, `missed ${stats.missed}: an 80 ms import between ticks should cost slots`);
  });

  it('with it, the module is loaded before the first tick and the first verb misses nothing', async (t) => {
    const stats = await firstVerb(await startRig(t, {}, { warm: [{ module: HEAVY }] }));
    assert.equal(stats.missed, 0);
  });

  it('a module that cannot be warmed does not keep the loop from starting, nor its other verbs from running', async (t) => {
    const rig = await startRig(t, {}, { warm: [{ module: new URL('./no-such-skill.ts', import.meta.url).href }, { module: HEAVY }] });
    const stats = await firstVerb(rig);
    assert.equal(stats.missed, 0);
  });
});
