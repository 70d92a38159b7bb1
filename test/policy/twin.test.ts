import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { userModel } from '../../src/bodies/microduck/mujoco/user-model.js';
import { loadMujoco, type Mujoco } from '../../src/bodies/microduck/mujoco/wasm.js';
import { BUNDLED_SLOTS, bundledPolicyDir, type BundledSlot } from '../../src/policy/bundled.js';
import { FALL_TILT } from '../../src/policy/make/twin-loop.js';
import { commandFor } from '../../src/policy/command.js';
import { kickTrial, loadBundledPolicies, loadPolicySet, standTrial, turnTrial, walkTrial, WALK_COMMAND, type PolicySet } from '../../src/policy/make/twin-trials.js';
import type { Twist } from '../../src/policy/observation.js';

// The committed bundled policies (real ONNX on onnxruntime-node) closed-loop in the real twin.
// Deterministic physics: the same figures every run. The tuner scores on seeds 2, 3 and 5; these
// are other headings.
//
// Opt-in, the same trials on a trained set: QUACKD_POLICY_DIR holds one folder per slot (walk,
// turn, stand, kick_left, kick_right: the names `policies:` and `quackd policy load` use); a slot
// it lacks is skipped. QUACKD_MJCF, if set, is the model they run on (as the `mjcf` setting),
// else quackd's duck. The walk is commanded at the top of its manifest's command.ranges.vx.
const SEEDS = [1, 7, 42];
const deg = (rad: number): number => (rad * 180) / Math.PI;

type LoadedSet = PolicySet & { close(): Promise<void> };

interface TrialOptions {
  /** The slots the set has its own policy for; the others' trials are skipped. */
  readonly has: ReadonlySet<BundledSlot>;
  readonly walkCommand: () => Twist;
}

/** The trials on the set `load` gives; returns what they run on, for a test of the caller's own. */
function twinTrials(load: () => Promise<LoadedSet>, options: TrialOptions): () => { mujoco: Mujoco; policies: LoadedSet } {
  let mujoco: Mujoco;
  let policies: LoadedSet;
  before(async () => {
    mujoco = await loadMujoco();
    policies = await load();
  });
  after(async () => {
    await policies.close();
  });
  const missing = (...slots: BundledSlot[]): string | false => {
    const absent = slots.filter((s) => !options.has.has(s));
    return absent.length > 0 ? `the set has no ${absent.join(' or ')} policy` : false;
  };

  for (const seed of SEEDS) {
    it(`walk goes ≥ 0.5 m forward in 10 s without falling (seed ${seed})`, { skip: missing('walk') }, async () => {
      const command = options.walkCommand();
      const w = await walkTrial(mujoco, policies, seed, 10, command);
      assert.equal(w.run.stoppedBy, 'time', `stopped by ${w.run.stoppedBy} at ${w.run.seconds} s`);
      assert.ok(w.maxTilt < FALL_TILT, `tilt reached ${deg(w.maxTilt).toFixed(1)}°`);
      assert.ok(w.forward >= 0.5, `forward ${w.forward.toFixed(3)} m at vx ${command.vx} (sideways ${w.sideways.toFixed(3)} m, yaw ${deg(w.yaw).toFixed(1)}°)`);
    });
  }

  // The heading hold (src/control/skills/heading-hold.ts) steers a straight walk through its vyaw:
  // a walk that turns the other way for it (the bundled one did, until its hip yaw's sign was
  // turned) is steered off its line. Such a set needs `heading_hold: false`.
  it('walk turns the way its vyaw says while it walks (counter-clockwise for +vyaw)', { skip: missing('walk') }, async () => {
    const command = options.walkCommand();
    const left = await walkTrial(mujoco, policies, 1, 4, { ...command, vyaw: 0.6 });
    const right = await walkTrial(mujoco, policies, 1, 4, { ...command, vyaw: -0.6 });
    assert.ok(left.yaw > 0.1 && right.yaw < -0.1, `yaw after 4 s: ${deg(left.yaw).toFixed(1)}° at vyaw +0.6, ${deg(right.yaw).toFixed(1)}° at −0.6`);
  });

  for (const seed of SEEDS) {
    for (const goal of [90, -90]) {
      it(`turn by ${goal}° stops within 15° of the goal (seed ${seed})`, { skip: missing('turn', 'stand') }, async () => {
        const t = await turnTrial(mujoco, policies, seed, (goal * Math.PI) / 180);
        assert.ok(!t.fell, `fell (tilt ${deg(t.maxTilt).toFixed(1)}°)`);
        assert.ok(Math.abs(deg(t.error)) < 15, `turned ${deg(t.turned).toFixed(1)}° in ${t.turnSeconds.toFixed(2)} s`);
      });
    }
  }

  for (const seed of SEEDS) {
    for (const side of ['left', 'right'] as const) {
      it(`kick_${side} moves a ball in front of the ${side} foot ≥ 0.2 m (seed ${seed})`, { skip: missing(`kick_${side}`, 'stand') }, async () => {
        const k = await kickTrial(mujoco, policies, seed, side);
        assert.ok(!k.fell, `fell (tilt ${deg(k.maxTilt).toFixed(1)}°)`);
        assert.ok(k.ball >= 0.2, `ball moved ${k.ball.toFixed(3)} m (the foot came within ${k.reach.toFixed(3)} m of its centre)`);
      });
    }
  }

  for (const seed of SEEDS) {
    it(`stand holds 5 s (seed ${seed})`, { skip: missing('stand') }, async () => {
      const s = await standTrial(mujoco, policies, seed, 5);
      assert.equal(s.seconds, 5);
      assert.ok(deg(s.maxTilt) < 10, `tilt reached ${deg(s.maxTilt).toFixed(1)}°`);
      assert.ok(s.drift < 0.02, `crept ${s.drift.toFixed(3)} m`);
    });
  }
  return () => ({ mujoco, policies });
}

describe('bundled policies in the MuJoCo twin', () => {
  const bundled = twinTrials(loadBundledPolicies, { has: new Set(BUNDLED_SLOTS), walkCommand: () => WALK_COMMAND });

  it('walk clamps a faster command to its range (vx 0.3 m/s: faster falls) and still walks', async () => {
    const { mujoco, policies } = bundled();
    const w = await walkTrial(mujoco, policies, 1, 10, { vx: 1, vy: 0, vyaw: 0 });
    assert.ok(!w.run.fell && w.forward >= 0.5, `forward ${w.forward.toFixed(3)} m, tilt ${deg(w.maxTilt).toFixed(1)}°`);
  });
});

const TRAINED = process.env['QUACKD_POLICY_DIR'];
const MJCF = process.env['QUACKD_MJCF'];

describe(`a trained policy set in the MuJoCo twin (QUACKD_POLICY_DIR${MJCF !== undefined ? ', QUACKD_MJCF' : ''})`, { skip: TRAINED === undefined ? 'set QUACKD_POLICY_DIR=/path/set (a folder per slot) and optionally QUACKD_MJCF=/path/scene.xml to run these trials on a trained set' : false }, () => {
  const dir = resolve(TRAINED ?? '.');
  const has = new Set(BUNDLED_SLOTS.filter((s) => existsSync(join(dir, s))));
  // A slot the set lacks is filled by the bundled folder so the set loads; its trials are skipped.
  const dirOf = (slot: BundledSlot): string => (has.has(slot) ? join(dir, slot) : bundledPolicyDir(slot));
  let walkCommand: Twist = WALK_COMMAND;
  twinTrials(
    async () => {
      const set = await loadPolicySet(dirOf);
      // What the walk verb sends this policy (its nominal, else the top of its range), not a speed of the test's own.
      const sent = commandFor(set.walk.manifest, 'vx', 1);
      walkCommand = { ...WALK_COMMAND, vx: typeof sent === 'string' ? WALK_COMMAND.vx : sent.value };
      // The model as the mjcf setting opens it: joint names and home from the walk's manifest.
      const duck = MJCF !== undefined ? userModel({ mjcf: MJCF }, dirOf('walk')) : undefined;
      return duck !== undefined ? { ...set, duck } : set;
    },
    { has, walkCommand: () => walkCommand },
  );
});
