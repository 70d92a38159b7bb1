/**
 * The Open Duck Mini v2 reference walk's contract (layout open-duck-mini-v2): its manifest's
 * defaults and refusals, its 101-float observation pinned index by index against a vector written
 * out by hand from the reference's get_obs (Open_Duck_Mini_Runtime v2_rl_walk_mujoco.py), and its
 * imitation phase counted as the reference counts it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SensorFrame } from '../../src/control/plant.js';
import { PolicyError } from '../../src/policy/errors.js';
import { ImitationPhase } from '../../src/policy/imitation-phase.js';
import { actionScale, parseManifest, resolveManifest } from '../../src/policy/manifest.js';
import { buildObservation } from '../../src/policy/observation.js';

const OPTS = { manifestFile: 'w/manifest.json', modelFile: 'w/policy.onnx' };
const resolve = (text: string) => resolveManifest(parseManifest(text, OPTS.manifestFile), { inputs: 101, outputs: 14 }, OPTS);

// The reference runtime's init_pos (rustypot_position_hwi.py), in policy order.
const ODM_INIT = [0.002, 0.053, -0.63, 1.368, -0.784, 0, 0, 0, 0, -0.003, -0.065, 0.635, 1.379, -0.796];

describe('open-duck-mini-v2: the manifest', () => {
  it('a 101-input walk gets the reference layout, its stance as home and its 0.25 action scale', () => {
    const m = resolve('{"command": {"phase_steps": 36}}');
    assert.equal(m.obs_layout, 'open-duck-mini-v2');
    assert.deepEqual(m.home, ODM_INIT);
    assert.equal(actionScale(m), 0.25);
    assert.equal(actionScale({ ...m, action_scale: 0.3 }), 0.3);
    // The Microduck layouts keep robotd's defaults.
    assert.equal(actionScale({ obs_layout: 'microduck-51', slot: 'walk' }), 0.9);
    assert.equal(actionScale({ obs_layout: 'microduck-51', slot: 'stand' }), 1);
  });

  it('refuses it without the reference motion\'s period, in one line saying where that is', () => {
    assert.throws(
      () => resolve('{}'),
      (err: unknown) =>
        err instanceof PolicyError &&
        err.message ===
          'w/manifest.json: command.phase_steps: obs_layout open-duck-mini-v2 needs the ticks in one cycle of its reference motion (nb_steps_in_period: int(period × fps) of the polynomial_coefficients.pkl it was trained with)',
    );
    assert.throws(() => resolve('{"command": {"phase_steps": 0}}'), /command\.phase_steps: expected a number > 0/);
    assert.throws(() => resolve('{"command": {"phase_steps": 2.5}}'), /command\.phase_steps: expected a whole number/);
    assert.throws(() => resolve('{"velocity_scale": 0, "command": {"phase_steps": 36}}'), /velocity_scale: expected a number > 0/);
  });
});

describe('open-duck-mini-v2: the observation', () => {
  const frame: SensorFrame = {
    gyro: [0.1, -0.2, 0.3],
    gravity: [0.05, -0.1, -0.99],
    accel: [0.4, -0.5, 9.7],
    // Each joint sits (i + 1) / 100 rad from the reference stance.
    jointPos: Float64Array.from(ODM_INIT.map((h, i) => h + (i + 1) / 100)),
    jointVel: Float64Array.from({ length: 14 }, (_, i) => -(i + 1)),
  };
  const a1 = Array.from({ length: 14 }, (_, i) => 0.1 * (i + 1));
  const a2 = Array.from({ length: 14 }, (_, i) => -0.01 * (i + 1));
  const a3 = Array.from({ length: 14 }, (_, i) => 0.5 - i / 28);
  const targets = Array.from({ length: 14 }, (_, i) => (ODM_INIT[i] ?? 0) + 0.25 * (a1[i] ?? 0));

  it('is the reference\'s blocks in the reference\'s order', () => {
    const obs = buildObservation('open-duck-mini-v2', {
      frame,
      home: ODM_INIT,
      lastAction: a1,
      pastActions: [a2, a3],
      lastTargets: targets,
      command: { vx: 0.15, vy: -0.05, vyaw: 0.8 },
      head: { neckPitch: 0.11, headPitch: 0.22, headYaw: -0.33, headRoll: 0.44 },
      imitationPhase: [0.6, 0.8],
    });
    const expected = [
      0.1, -0.2, 0.3, // gyro
      0.4, -0.5, 9.7, // accelerometer, not gravity
      0.15, -0.05, 0.8, 0.11, 0.22, -0.33, 0.44, // the 7-wide command
      ...Array.from({ length: 14 }, (_, i) => (i + 1) / 100), // positions − home
      ...Array.from({ length: 14 }, (_, i) => -(i + 1) * 0.05), // velocities × 0.05
      ...a1, ...a2, ...a3, // the last three actions, newest first
      ...targets, // the last motor targets
      0, 0, // foot contacts: no switches
      0.6, 0.8, // imitation phase
    ];
    assert.equal(obs.length, 101);
    expected.forEach((e, i) => assert.ok(Math.abs((obs[i] ?? Number.NaN) - e) < 1e-5, `index ${i}: ${obs[i]} ≠ ${e}`));
  });

  it('before any action: zeros for the actions, the stance for the targets, [0, 0] for the phase, no contacts from a plant that tells none; a velocity scale of the manifest\'s', () => {
    const obs = buildObservation('open-duck-mini-v2', { frame, home: ODM_INIT, lastAction: new Array<number>(14).fill(0), command: { vx: 0, vy: 0, vyaw: 0 }, velocityScale: 0.1 });
    assert.deepEqual(Array.from(obs.subarray(6, 13)), [0, 0, 0, 0, 0, 0, 0]);
    assert.ok(Math.abs((obs[27] ?? 0) + 0.1) < 1e-6, `velocity 0 × 0.1: ${obs[27]}`);
    assert.deepEqual(Array.from(obs.subarray(41, 83)), new Array<number>(42).fill(0));
    ODM_INIT.forEach((h, i) => assert.ok(Math.abs((obs[83 + i] ?? Number.NaN) - h) < 1e-6, `target ${i}`));
    assert.deepEqual(Array.from(obs.subarray(97)), [0, 0, 0, 0]);
  });

  it('reads the foot contacts where the plant tells them, left then right', () => {
    const obs = buildObservation('open-duck-mini-v2', { frame: { ...frame, feet: [false, true] }, home: ODM_INIT, lastAction: new Array<number>(14).fill(0), command: { vx: 0, vy: 0, vyaw: 0 } });
    assert.deepEqual(Array.from(obs.subarray(97, 99)), [0, 1]);
  });

  it('is never built from a frame without an accelerometer', () => {
    const { accel: _none, ...noAccel } = frame;
    assert.throws(() => buildObservation('open-duck-mini-v2', { frame: noAccel, home: ODM_INIT, lastAction: new Array<number>(14).fill(0), command: { vx: 0, vy: 0, vyaw: 0 } }), /observes the accelerometer/);
  });
});

describe('open-duck-mini-v2: the imitation phase', () => {
  const seq = (p: ImitationPhase, ticks: number): number[][] =>
    Array.from({ length: ticks }, () => {
      const seen = p.observed().map((v) => Math.round(v * 1e6) / 1e6 + 0);
      p.advance();
      return seen;
    });

  it('reads [0, 0] first, then the count before each tick\'s advance, wrapping at phase_steps', () => {
    assert.deepEqual(seq(new ImitationPhase(4), 6), [[0, 0], [0, 1], [-1, 0], [0, -1], [1, 0], [0, 1]]);
  });

  it('adds phase_offset to each step, and a negative one wraps as Python\'s modulo does', () => {
    const half = Math.SQRT1_2;
    const r = (v: number) => Math.round(v * 1e6) / 1e6 + 0;
    assert.deepEqual(seq(new ImitationPhase(4, 0.5), 3), [[0, 0], [r(-half), r(half)], [0, -1]]);
    // 1 − 1.5 = −0.5 a tick: 3.5, 3, 2.5 … of 4, never negative.
    assert.deepEqual(seq(new ImitationPhase(4, -1.5), 3), [[0, 0], [r(half), r(-half)], [0, -1]]);
  });
});
