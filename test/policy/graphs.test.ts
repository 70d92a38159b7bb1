/**
 * The bundled graphs compute what src/policy/README.md says, checked on outputs worked out by
 * hand for parameters written here: the committed params.ts will be retuned, the arithmetic of
 * the graphs will not. The committed files are held to the relations that survive any tuning.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { bundledPolicyDir, type BundledSlot } from '../../src/policy/bundled.js';
import { loadPolicy } from '../../src/policy/load.js';
import { gaitGraph, kickGraph, standGraph } from '../../src/policy/make/graphs.js';
import { jsonText } from '../../src/policy/make/json-text.js';
import { bundledManifest } from '../../src/policy/make/manifests.js';
import type { PolicyParams } from '../../src/policy/make/param-types.js';
import type { Policy } from '../../src/policy/policy.js';
import { policyFolder } from './policy-folders.js';

// Parameters for the hand computations: every knob distinct, action scale 0.5 (outputs are twice
// the offsets), the right hip roll axis flipped to show the signs reach the joints.
const P: PolicyParams = {
  actionScale: 0.5,
  home: [0, 0, 0.6, -1.2, 0.6, -0.5, 0.5, 0, 0, 0, 0, -0.6, 1.2, -0.6],
  signs: { hipPitchForward: 1, hipRollLeft: 1, hipRollRight: -1, hipYawLeft: 1, hipYawRight: 1 },
  stance: { crouch: 0.1, splay: 0.05, lean: 0.02 },
  balance: { pitchHip: 1, pitchHipRate: 0.1, pitchAnkle: 0.5, pitchAnkleRate: 0.05, rollHip: 2, rollHipRate: 0.2 },
  walk: { period_s: 0.5, stepHeight: 0.2, stridePerVx: 1, lateralPerVy: 0.5, yawPerVyaw: 0.25, sway: 0.1, activity: { vx: 5, vy: 5, vyaw: 1 }, ranges: { vx: [-0.2, 0.4], vy: [-0.1, 0.1], vyaw: [-1, 1] } },
  turn: { period_s: 0.5, stepHeight: 0.2, stridePerVx: 1, lateralPerVy: 0.5, yawPerVyaw: 0.25, sway: 0.1, activity: { vx: 5, vy: 5, vyaw: 1 }, ranges: { vx: [-0.2, 0.4], vy: [-0.1, 0.1], vyaw: [-1, 1] } },
  kick: { duration_s: 1, shift: 0.1, shiftRamp: 2, lift: 0.2, windBack: 0.1, swing: 0.3, kneeExtend: 0.2 },
};

/**
 * The stance with P, worked out: crouch 0.1 → left hip +0.1, knee −0.2, ankle +0.1 (right
 * mirrored); lean 0.02 → left hip +0.02, ankle −0.02 (right: hip −0.02, ankle +0.02); splay 0.05
 * → left roll +0.05, right foot −0.05 through a flipped axis: +0.05. Halved by the action scale
 * into [yaw, roll, hip, knee, ankle] per leg:
 */
const STANCE = [0, 0.1, 0.24, -0.4, 0.16, 0, 0, 0, 0, 0, 0.1, -0.24, 0.4, -0.16];

const graphFor: Record<BundledSlot, (p: PolicyParams) => Uint8Array> = {
  walk: (p) => gaitGraph(p, p.walk, 'walk'),
  turn: (p) => gaitGraph(p, p.turn, 'turn'),
  stand: (p) => standGraph(p, 'stand'),
  kick_left: (p) => kickGraph(p, 'left', 'kick_left'),
  kick_right: (p) => kickGraph(p, 'right', 'kick_right'),
};

const open: Policy[] = [];
after(async () => {
  for (const p of open) await p.close();
});

async function made(slot: BundledSlot): Promise<Policy> {
  const policy = await loadPolicy(policyFolder(graphFor[slot](P), jsonText(bundledManifest(slot, P))), { runtime: 'onnxruntime-node' });
  open.push(policy);
  return policy;
}

/** An observation of `width`: upright and still, with the given entries set. */
function obs(width: number, set: Readonly<Record<number, number>>): Float32Array {
  const o = new Float32Array(width);
  o[5] = -1;
  for (const [i, v] of Object.entries(set)) o[Number(i)] = v;
  return o;
}

async function expectActions(policy: Policy, input: Float32Array, expected: readonly number[]): Promise<void> {
  const a = await policy.run(input);
  expected.forEach((e, i) => assert.ok(Math.abs((a[i] ?? Number.NaN) - e) < 1e-5, `joint ${i}: ${a[i]} ≠ ${e} (all: ${Array.from(a).map((v) => v.toFixed(5)).join(', ')})`));
}

const C = 51; // cos 2πφ
const S = 52; // sin 2πφ
const H = Math.SQRT1_2;

describe('bundled graphs: outputs worked out by hand', () => {
  it('walk, zero command at φ = 0, upright and still: the stance, nothing else', async () => {
    await expectActions(await made('walk'), obs(53, { [C]: 1 }), STANCE);
  });

  it('walk at φ = 0 with vx 1 (clamped to 0.4): left foot back, right forward, no lift', async () => {
    // swing ∓0.4: left hip −0.4, ankle +0.4; right (mirrored) hip −0.4, ankle +0.4; plus stance, × 2.
    await expectActions(await made('walk'), obs(53, { [C]: 1, 48: 1 }), [0, 0.1, -0.56, -0.4, 0.96, 0, 0, 0, 0, 0, 0.1, -1.04, 0.4, 0.64]);
  });

  it('walk at φ = 0.25 with vx 0.3: the left foot at the top of its swing, weight over the right', async () => {
    // activity min(1, 0.3 × 5) = 1; left crouch 0.2: hip +0.2, knee −0.4, ankle +0.2; sway 0.1 on
    // both hips (right through its flipped axis: −0.1); c = 0: no fore-aft term.
    await expectActions(await made('walk'), obs(53, { [C]: 0, [S]: 1, 48: 0.3 }), [0, 0.3, 0.64, -1.2, 0.56, 0, 0, 0, 0, 0, -0.1, -0.24, 0.4, -0.16]);
  });

  it('walk at φ = 0.5 with a small vyaw: activity below 1 scales nothing at s = 0; the toes turn', async () => {
    // vyaw 0.2: hip yaw −c × 0.25 × 0.2 = +0.05 left, −0.05 right (c = −1); × 2.
    await expectActions(await made('walk'), obs(53, { [C]: -1, 50: 0.2 }), [0.1, 0.1, 0.24, -0.4, 0.16, 0, 0, 0, 0, -0.1, 0.1, -0.24, 0.4, -0.16]);
  });

  it('stand: balance from gravity and gyro on top of the stance', async () => {
    // pitch g_x 0.1, ω_y 1: swing −(1 × 0.1 + 0.1 × 1) = −0.2 (left hip −0.2, ankle +0.2; right
    // hip +0.2, ankle −0.2) and toe-down 0.5 × 0.1 + 0.05 × 1 = 0.1 (left ankle −0.1, right +0.1);
    // roll g_y −0.2, ω_x 0.5: feet left by 2 × 0.2 + 0.2 × 0.5 = 0.5 (right roll −0.5). Plus stance, × 2.
    await expectActions(await made('stand'), obs(51, { 0: 0.5, 1: 1, 3: 0.1, 4: -0.2, 5: -0.97 }), [0, 1.1, -0.16, -0.4, 0.36, 0, 0, 0, 0, 0, -0.9, 0.16, 0.4, -0.36]);
  });

  it('kick_left at φ = 0 is the stance (it starts and ends standing)', async () => {
    await expectActions(await made('kick_left'), obs(53, { [C]: 1 }), STANCE);
  });

  it('kick_left at φ = 0.375: weight right, left foot lifted and winding back', async () => {
    // c = s·(−1) = −√½: shift clip(2 × (1 + √½) / 2) = 1 → both feet left by 0.1 (right −0.1);
    // lift √½ × 0.2 = 0.14142 (left hip +, knee −0.28284, ankle +); wind back 2 × 0.1 × √½ × √½ = 0.1
    // (left hip −0.1, ankle +0.1). Plus stance, × 2.
    await expectActions(await made('kick_left'), obs(53, { [C]: -H, [S]: H }), [0, 0.3, 0.32284, -0.96569, 0.64284, 0, 0, 0, 0, 0, -0.1, -0.24, 0.4, -0.16]);
  });

  it('kick_left at φ = 0.625: the kick, knee extending', async () => {
    // c = s = −√½: shift 1, lift 0.14142, forward swing 2 × 0.3 × ½ = 0.3 (left hip +0.3, ankle −0.3),
    // knee extension 2 × 0.2 × ½ = 0.2 (left knee +0.2). Plus stance, × 2.
    await expectActions(await made('kick_left'), obs(53, { [C]: -H, [S]: -H }), [0, 0.3, 1.12284, -0.56569, -0.15716, 0, 0, 0, 0, 0, -0.1, -0.24, 0.4, -0.16]);
  });

  it('kick_right at φ = 0.625: the mirror image, on the right leg', async () => {
    // Weight left: both feet right by 0.1 (left roll −0.1, right +0.1 through its flipped axis);
    // right crouch 0.14142 (hip −, knee +0.28284, ankle −), swing 0.3 (hip −0.3, ankle +0.3), knee −0.2.
    await expectActions(await made('kick_right'), obs(53, { [C]: -H, [S]: -H }), [0, -0.1, 0.24, -0.4, 0.16, 0, 0, 0, 0, 0, 0.3, -1.12284, 0.56569, 0.15716]);
  });
});

describe('bundled graphs: the committed files keep their shape whatever the tuning', () => {
  it('walk with zero command, turn with zero command and both kicks at φ = 0 all give the stand output', async () => {
    const load = async (slot: BundledSlot): Promise<Policy> => {
      const p = await loadPolicy(bundledPolicyDir(slot), { runtime: 'onnxruntime-node' });
      open.push(p);
      return p;
    };
    const tilted = { 0: 0.2, 1: -0.3, 3: 0.05, 4: 0.1, 5: -0.99 };
    const stand = Array.from(await (await load('stand')).run(obs(51, tilted)));
    for (const slot of ['walk', 'turn', 'kick_left', 'kick_right'] as const) {
      await expectActions(await load(slot), obs(53, { ...tilted, [C]: 1 }), stand);
    }
  });
});
