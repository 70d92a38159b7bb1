/** The twin's bumper on sim2d's floor plan: what blocks a walk, and what must not. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { proximityOf, SWEPT_RADIUS } from '../../../src/bodies/microduck/mujoco/proximity.js';
import { SOFA } from '../../../src/bodies/microduck/sim2d/arena.js';

const at = (x: number, y: number, yawDeg: number) => ({ x, y, z: 0.1, roll: 0, pitch: 0, yaw: (yawDeg * Math.PI) / 180 });

describe('twin proximity', () => {
  it('a wall just ahead blocks ahead, not behind; the middle of the room blocks nothing', () => {
    assert.deepEqual(proximityOf(at(5 - SWEPT_RADIUS - 0.02, 2, 0)), { ahead: 'wall', behind: null });
    assert.deepEqual(proximityOf(at(5 - SWEPT_RADIUS - 0.02, 2, 180)), { ahead: null, behind: 'wall' });
    assert.deepEqual(proximityOf(at(2.5, 1.5, 37)), { ahead: null, behind: null });
  });

  it('a duck already close to a wall may walk along it or away from it', () => {
    assert.deepEqual(proximityOf(at(2, 0.08, 180)), { ahead: null, behind: null });
    assert.deepEqual(proximityOf(at(2, 0.08, 90)), { ahead: null, behind: 'wall' });
  });

  it('the sofa is named as the sofa', () => {
    const x = (SOFA.x0 + SOFA.x1) / 2;
    assert.deepEqual(proximityOf(at(x, SOFA.y0 - SWEPT_RADIUS - 0.02, 90)), { ahead: 'sofa', behind: null });
  });
});
