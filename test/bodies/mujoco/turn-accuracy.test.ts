/**
 * The twin's turns land where they were asked: a pilot aiming at a ball a few degrees off turns
 * by a few degrees, and an overshoot of 2–3° on every small turn made the fake pilot swing left
 * and right at the ball (find-and-kick's line-up). The turn ends ahead of its goal by the yaw
 * the gait still carries (src/control/skills/policy.ts, YAW_LEAD_S).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findBody } from '../../../src/bodies/index.js';

describe('microduck:mujoco turns', { timeout: 120_000 }, () => {
  it('end within 1° on average, 2° at most, of what was asked (5–90°, both ways)', async () => {
    const entry = findBody('microduck:mujoco');
    assert.ok(entry !== undefined);
    const body = await entry.load({ seed: 1 });
    const errors: string[] = [];
    let total = 0;
    const asked = [5, 10, 15, 20, 30, 45, 90, -8, -12, -25, -60];
    try {
      for (const degrees of asked) {
        const r = await body.perform({ verb: 'turn', args: { degrees } });
        const turned = Number(r.data?.['turned_deg']);
        total += Math.abs(turned - degrees);
        errors.push(`${degrees}° → ${turned}°`);
        assert.ok(Math.abs(turned - degrees) <= 2, errors.join(', '));
      }
    } finally {
      await body.close();
    }
    assert.ok(total / asked.length <= 1, `mean error ${(total / asked.length).toFixed(2)}°: ${errors.join(', ')}`);
  });
});
