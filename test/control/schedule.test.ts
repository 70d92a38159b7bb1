/** The loop's grid (skip, never burst) and fall detection, on their own. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FallDetector, tiltOf } from '../../src/control/fall.js';
import { nextSlot } from '../../src/control/schedule.js';

describe('nextSlot', () => {
  it('runs the next slot when on time or late by less than a period', () => {
    assert.deepEqual(nextSlot(0, 20, 4, 85), { slot: 5, missed: 0 });
    assert.deepEqual(nextSlot(0, 20, 4, 100.5), { slot: 5, missed: 0 });
    assert.deepEqual(nextSlot(0, 20, 4, 119.9), { slot: 5, missed: 0 });
  });

  it('skips to the latest slot due when late by more than a period, counting the skipped', () => {
    // Slot 4 ran at 80 and blocked for three periods: slots 5 and 6 are skipped, 7 runs now.
    assert.deepEqual(nextSlot(0, 20, 4, 140.2), { slot: 7, missed: 2 });
    assert.deepEqual(nextSlot(1000, 20, 0, 1000 + 20 * 50 + 3), { slot: 50, missed: 49 });
  });
});

describe('fall detection', () => {
  const upright = [0, 0, -1] as const;
  const tilted = (rad: number) => [Math.sin(rad), 0, -Math.cos(rad)] as const;

  it('reads the tilt from projected gravity', () => {
    assert.ok(Math.abs(tiltOf(upright)) < 1e-12);
    assert.ok(Math.abs(tiltOf(tilted(0.5)) - 0.5) < 1e-12);
    assert.ok(Math.abs(tiltOf([0, 2, 0]) - Math.PI / 2) < 1e-12);
    assert.ok(Math.abs(tiltOf([0, 0, 1]) - Math.PI) < 1e-12);
  });

  it('is a fall after the set number of tilted ticks in a row, and a recovery after as many upright', () => {
    const d = new FallDetector({ tiltRad: 0.8, ticks: 3, then: 'hold' });
    const seen = [upright, tilted(1), tilted(1), upright, tilted(1), tilted(1), tilted(1), upright, upright, tilted(1)].map((g) => d.update(g));
    assert.deepEqual(seen, [undefined, undefined, undefined, undefined, undefined, undefined, 'fell', undefined, undefined, undefined]);
    assert.equal(d.fallen, true);
    assert.deepEqual([upright, upright, upright].map((g) => d.update(g)), [undefined, undefined, 'recovered']);
  });
});
