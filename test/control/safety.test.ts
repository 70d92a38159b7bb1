/**
 * The safety stage on its own: clamp to the announced limits, one period's travel per tick,
 * non-finite and short vectors refused whole (the last targets held), and a pose found outside
 * the limits held where it is rather than snapped back.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JointSpec, Plant } from '../../src/control/plant.js';
import { SafetyStage, limitTargets } from '../../src/control/safety.js';

const JOINTS: JointSpec[] = [
  { name: 'a', min: -1, max: 1, maxVelocity: 2 },
  { name: 'b', min: 0, max: 0.5, maxVelocity: 10 },
];
// 20 ms periods: joint a may travel 0.04 rad a tick, joint b 0.2.
const PERIOD_S = 0.02;

function recordingPlant(): Plant & { sent: number[][] } {
  const sent: number[][] = [];
  return { joints: JOINTS, sent, read: () => undefined, send: (t) => void sent.push([...t]) };
}

const near = (actual: readonly number[], expected: readonly number[]) =>
  assert.ok(
    actual.length === expected.length && actual.every((v, i) => Math.abs(v - (expected[i] ?? Number.NaN)) < 1e-12),
    `${JSON.stringify(actual)} is not ${JSON.stringify(expected)}`,
  );

describe('limitTargets', () => {
  it('clamps to the joint limits', () => {
    const out = new Float64Array(2);
    const v = limitTargets([5, -3], Float64Array.from([0.98, 0.1]), JOINTS, PERIOD_S, out);
    assert.deepEqual(v, { sent: true, clamped: 2, stepLimited: 0 });
    near([...out], [1, 0]);
  });

  it('cuts every jump to maxVelocity × period from the last target', () => {
    const out = new Float64Array(2);
    const v = limitTargets([0.5, 0.45], Float64Array.from([0, 0.1]), JOINTS, PERIOD_S, out);
    assert.deepEqual(v, { sent: true, clamped: 0, stepLimited: 2 });
    near([...out], [0.04, 0.3]);
  });

  it('clamps first, then limits the step (a far target outside the limits moves one step toward the limit)', () => {
    const out = new Float64Array(2);
    limitTargets([-9, 0.2], Float64Array.from([-0.5, 0.2]), JOINTS, PERIOD_S, out);
    near([...out], [-0.54, 0.2]);
  });

  it('refuses a vector with NaN or ±Infinity, and one of the wrong length', () => {
    const out = Float64Array.from([7, 7]);
    const last = Float64Array.from([0, 0]);
    assert.deepEqual(limitTargets([Number.NaN, 0], last, JOINTS, PERIOD_S, out), { sent: false, refused: 'non-finite' });
    assert.deepEqual(limitTargets([0, Number.POSITIVE_INFINITY], last, JOINTS, PERIOD_S, out), { sent: false, refused: 'non-finite' });
    assert.deepEqual(limitTargets([0], last, JOINTS, PERIOD_S, out), { sent: false, refused: 'length' });
    near([...out], [7, 7]);
  });

  it('holds a joint found past its limit where it is, lets it move inward, never further out', () => {
    const out = new Float64Array(2);
    const last = Float64Array.from([1.3, 0.2]);
    limitTargets([1.3, 0.2], last, JOINTS, PERIOD_S, out);
    near([...out], [1.3, 0.2]);
    limitTargets([2, 0.2], last, JOINTS, PERIOD_S, out);
    near([...out], [1.3, 0.2]);
    limitTargets([0, 0.2], last, JOINTS, PERIOD_S, out);
    near([...out], [1.26, 0.2]);
  });
});

describe('SafetyStage', () => {
  it('sends nothing until a pose is established, then sends that pose unchanged', () => {
    const plant = recordingPlant();
    const safety = new SafetyStage(plant, PERIOD_S);
    safety.hold();
    assert.deepEqual(plant.sent, []);
    assert.throws(() => safety.submit([0, 0]), /no hold pose/);
    safety.establish(Float64Array.from([1.3, 0.7]));
    assert.deepEqual(plant.sent, [[1.3, 0.7]]);
  });

  it('a refused vector holds the last targets; the next good one moves from them', () => {
    const plant = recordingPlant();
    const safety = new SafetyStage(plant, PERIOD_S);
    safety.establish(Float64Array.from([0, 0.1]));
    assert.equal(safety.submit([0.01, 0.1]).sent, true);
    assert.deepEqual(safety.submit([Number.NaN, 0.1]), { sent: false, refused: 'non-finite' });
    assert.equal(safety.submit([0.9, 0.1]).sent, true);
    near(plant.sent[1] ?? [], [0.01, 0.1]);
    near(plant.sent[2] ?? [], [0.01, 0.1]);
    near(plant.sent[3] ?? [], [0.05, 0.1]);
  });

  it('goes limp where the plant can and then sends nothing; holds where it cannot', () => {
    const limpPlant = Object.assign(recordingPlant(), { limps: 0, limp() { this.limps += 1; } });
    const safety = new SafetyStage(limpPlant, PERIOD_S);
    safety.establish(Float64Array.from([0, 0.1]));
    assert.equal(safety.limp(), true);
    safety.hold();
    assert.equal(limpPlant.limps, 1);
    assert.equal(limpPlant.sent.length, 1);

    const stiff = recordingPlant();
    const held = new SafetyStage(stiff, PERIOD_S);
    held.establish(Float64Array.from([0, 0.1]));
    assert.equal(held.limp(), false);
    assert.deepEqual(stiff.sent, [[0, 0.1], [0, 0.1]]);
  });
});
