/**
 * The observation builders against vectors written out by hand from the layout tables
 * (../shared/sim-kit/README.md, src/policy/README.md): every index is pinned, so a block that
 * moves shows up as a named index, not as a robot that walks badly.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SensorFrame } from '../../src/control/plant.js';
import { buildObservation, type ObservationInput } from '../../src/policy/observation.js';

/** Float32 holds about 7 digits: compare each index to 1e-6 and name the one that differs. */
function assertVector(actual: Float32Array, expected: readonly number[]): void {
  assert.equal(actual.length, expected.length, 'length');
  expected.forEach((e, i) => assert.ok(Math.abs((actual[i] ?? Number.NaN) - e) < 1e-6, `index ${i}: ${actual[i]} ≠ ${e}`));
}

const LEGACY_HOME = [0, 0, 0.6, -1.2, 0.6, -0.5, 0.5, 0, 0, 0, 0, -0.6, 1.2, -0.6];

// Each joint sits (i + 1) / 100 rad from home, so block 6..20 reads 0.01 … 0.14.
const frame: SensorFrame = {
  gyro: [0.1, -0.2, 0.3],
  gravity: [0.05, -0.1, -0.99],
  jointPos: Float64Array.from([0.01, 0.02, 0.63, -1.16, 0.65, -0.44, 0.57, 0.08, 0.09, 0.1, 0.11, -0.48, 1.33, -0.46]),
  jointVel: Float64Array.from([-0.1, -0.2, -0.3, -0.4, -0.5, -0.6, -0.7, -0.8, -0.9, -1, -1.1, -1.2, -1.3, -1.4]),
  trunk: { x: 1, y: 2, z: 0.1, roll: 0.01, pitch: 0.02, yaw: 0.3 },
};

const input: ObservationInput = {
  frame,
  home: LEGACY_HOME,
  lastAction: [0.5, -0.5, 0.25, -0.25, 1, -1, 0, 0.75, -0.75, 0.125, -0.125, 2, -2, 0.3],
  command: { vx: 0.3, vy: -0.1, vyaw: 0.7 },
  head: { neckPitch: 0.11, headPitch: 0.22, headYaw: -0.33, headRoll: 0.44 },
  body: { z: 0.015, roll: 0.2618, pitch: -0.1309 },
  phase: 1 / 12,
};

// 0..48, common to every layout: gyro, gravity, position − home, velocity, previous action.
const SHARED = [
  0.1, -0.2, 0.3,
  0.05, -0.1, -0.99,
  0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.11, 0.12, 0.13, 0.14,
  -0.1, -0.2, -0.3, -0.4, -0.5, -0.6, -0.7, -0.8, -0.9, -1, -1.1, -1.2, -1.3, -1.4,
  0.5, -0.5, 0.25, -0.25, 1, -1, 0, 0.75, -0.75, 0.125, -0.125, 2, -2, 0.3,
];

describe('observation builders', () => {
  it('microduck-51: the shared 48, then vx, vy, vyaw', () => {
    assertVector(buildObservation('microduck-51', input), [...SHARED, 0.3, -0.1, 0.7]);
  });

  it('microduck-51-body: the body command normalised (z / 0.03, pitch / 0.5236, roll / 0.5236) in the command slot', () => {
    assertVector(buildObservation('microduck-51-body', input), [...SHARED, 0.5, -0.25, 0.5]);
  });

  it('microduck-61: twist, head command, then body x, y = 0, z, roll, pitch, yaw = 0', () => {
    assertVector(buildObservation('microduck-61', input), [...SHARED, 0.3, -0.1, 0.7, 0.11, 0.22, -0.33, 0.44, 0, 0, 0.015, 0.2618, -0.1309, 0]);
  });

  it('microduck-61 without head or body commands: zeros there (the nominal stance)', () => {
    const { head: _h, body: _b, ...bare } = input;
    assertVector(buildObservation('microduck-61', bare), [...SHARED, 0.3, -0.1, 0.7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('quackd-gait-1: microduck-51, then cos 2πφ and sin 2πφ (φ = 1/12: 30°)', () => {
    assertVector(buildObservation('quackd-gait-1', input), [...SHARED, 0.3, -0.1, 0.7, 0.8660254, 0.5]);
    const { phase: _p, ...noPhase } = input;
    assertVector(buildObservation('quackd-gait-1', noPhase), [...SHARED, 0.3, -0.1, 0.7, 1, 0]);
    assertVector(buildObservation('quackd-gait-1', { ...input, phase: 0.75 }), [...SHARED, 0.3, -0.1, 0.7, 0, -1]);
  });

  it('a joint at its home pose reads zero, whichever home the policy uses', () => {
    const alpha = [0, -0.0873, -0.4579, -0.0049, 0.453, 0.3491, 0.3491, 0, 0, 0, 0.0873, 0.4579, 0.0049, -0.453];
    const atHome = buildObservation('microduck-61', { ...input, home: alpha, frame: { ...frame, jointPos: Float64Array.from(alpha) } });
    assertVector(atHome.subarray(6, 20), [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('fills the buffer it is given (no allocation per tick)', () => {
    const out = new Float32Array(53).fill(9);
    assert.equal(buildObservation('quackd-gait-1', input, out), out);
    assertVector(out, [...SHARED, 0.3, -0.1, 0.7, 0.8660254, 0.5]);
  });

  it('a wrong-sized input is a bug, thrown as RangeError', () => {
    assert.throws(() => buildObservation('microduck-51', input, new Float32Array(61)), { name: 'RangeError', message: 'observation: out has 61 values, expected 51' });
    assert.throws(() => buildObservation('microduck-51', { ...input, frame: { ...frame, jointPos: new Float64Array(15) } }), { name: 'RangeError', message: 'observation: jointPos has 15 values, expected 14' });
    assert.throws(() => buildObservation('microduck-61', { ...input, lastAction: [0] }), { name: 'RangeError', message: 'observation: lastAction has 1 values, expected 14' });
  });
});
