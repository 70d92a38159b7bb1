/**
 * loadPolicy: a manifest checked against its model and the robot, and missing files said
 * plainly. Every refusal is one line naming the file, written out here by hand.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PolicyError, type PolicyErrorReason } from '../../src/policy/errors.js';
import { loadPolicy } from '../../src/policy/load.js';
import { GraphBuilder } from '../../src/policy/make/onnx-graph.js';
import { tempDir } from '../helpers/tmp.js';
import { policyFolder } from './policy-folders.js';

/** A do-nothing graph of the given widths: obs [1, inputs] → actions [1, outputs]. */
function zeroModel(inputs: number, outputs: number): Uint8Array {
  const g = new GraphBuilder('obs', inputs);
  const out = g.matmul('obs', Array.from({ length: inputs }, () => new Array<number>(outputs).fill(0)));
  return g.model({ output: out, outputName: 'actions', outputWidth: outputs, name: 'zero', doc: '', metadata: {} });
}

async function refused(dir: string, reason: PolicyErrorReason, message: string): Promise<void> {
  await assert.rejects(loadPolicy(dir, { runtime: 'onnxruntime-node' }), (err: unknown) => {
    assert.ok(err instanceof PolicyError, String(err));
    assert.equal(err.message, message);
    assert.equal(err.reason, reason);
    assert.doesNotMatch(err.message, /\n/);
    return true;
  });
}

describe('loadPolicy: manifest against model and robot', () => {
  it('a good folder: the manifest filled in from the layout (legacy home for 51 inputs)', async () => {
    const dir = policyFolder('stand', { schema_version: 2, obs_len: 51, action_len: 14, robot: { model: 'microduck' }, kind: 'perpetual', slot: 'stand' });
    const policy = await loadPolicy(dir, { runtime: 'onnxruntime-node' });
    try {
      assert.equal(policy.dir, dir);
      assert.equal(policy.runtime, 'onnxruntime-node');
      assert.equal(policy.manifest.file, join(dir, 'manifest.json'));
      assert.equal(policy.manifest.obs_layout, 'microduck-51');
      assert.equal(policy.manifest.obs_len, 51);
      assert.equal(policy.manifest.kind, 'perpetual');
      assert.deepEqual(policy.manifest.home, [0, 0, 0.6, -1.2, 0.6, -0.5, 0.5, 0, 0, 0, 0, -0.6, 1.2, -0.6]);
      assert.equal(policy.manifest.joints[9], 'right_hip_yaw');
    } finally {
      await policy.close();
    }
  });

  it('obs_len and action_len absent: taken from the model; 61 inputs get the alpha home pose', async () => {
    const dir = policyFolder(zeroModel(61, 14), { robot: { model: 'microduck' } });
    const policy = await loadPolicy(dir, { runtime: 'onnxruntime-node' });
    try {
      assert.equal(policy.manifest.obs_len, 61);
      assert.equal(policy.manifest.action_len, 14);
      assert.equal(policy.manifest.obs_layout, 'microduck-61');
      assert.deepEqual(policy.manifest.home, [0, -0.0873, -0.4579, -0.0049, 0.453, 0.3491, 0.3491, 0, 0, 0, 0.0873, 0.4579, 0.0049, -0.453]);
    } finally {
      await policy.close();
    }
  });

  it('a 51-input file where the manifest says 61 is refused at load', async () => {
    const dir = policyFolder('stand', { obs_len: 61 });
    await refused(dir, 'mismatch', `${dir}/policy.onnx takes 51 inputs but manifest.json says obs_len 61`);
  });

  it('a model with 12 actions is refused, with or without action_len', async () => {
    const a = policyFolder(zeroModel(51, 12), { action_len: 14 });
    await refused(a, 'mismatch', `${a}/policy.onnx gives 12 actions but manifest.json says action_len 14`);
    const b = policyFolder(zeroModel(51, 12), {});
    await refused(b, 'mismatch', `${b}/policy.onnx gives 12 actions but a microduck has 14 policy joints`);
  });

  it('a manifest for another robot is refused', async () => {
    const dir = policyFolder('stand', { obs_len: 51, robot: { model: 'reachy-mini' } });
    await refused(dir, 'robot', `${dir}/manifest.json: robot.model is "reachy-mini" but this body is a microduck`);
  });

  it('a body of another robot refuses a Microduck manifest', async () => {
    const dir = policyFolder('stand', { robot: { model: 'microduck' } });
    await assert.rejects(loadPolicy(dir, { runtime: 'onnxruntime-node', robot: 'toddlerbot' }), { message: `${dir}/manifest.json: robot.model is "microduck" but this body is a toddlerbot` });
  });

  it('action_len other than 14 and a newer model_api are refused', async () => {
    const a = policyFolder('stand', { action_len: 15 });
    await refused(a, 'robot', `${a}/manifest.json: action_len is 15 but a microduck has 14 policy joints`);
    const b = policyFolder('stand', { model_api: 2 });
    await refused(b, 'robot', `${b}/manifest.json: model_api 2 needs a newer quackd (this one runs feed-forward policies, model_api 1)`);
  });

  it('a width with no published layout needs obs_layout; a layout must fit the width', async () => {
    const a = policyFolder(zeroModel(54, 14), {});
    await refused(a, 'mismatch', `${a}/manifest.json: obs_len 54 is no published layout (51, 61 or 101): add obs_layout (microduck-51, microduck-51-body, microduck-61, quackd-gait-1, open-duck-mini-v2)`);
    const b = policyFolder('stand', { obs_layout: 'microduck-61' });
    await refused(b, 'mismatch', `${b}/manifest.json: obs_layout microduck-61 has 61 inputs but ${b}/policy.onnx takes 51`);
    const c = policyFolder(zeroModel(53, 14), { obs_layout: 'quackd-gait-1' });
    await refused(c, 'manifest', `${c}/manifest.json: command.period_s: obs_layout quackd-gait-1 needs the phase cycle in seconds`);
  });

  it('a file that is no ONNX model is said so', async () => {
    const dir = policyFolder(new TextEncoder().encode('not a model'), {});
    await assert.rejects(loadPolicy(dir, { runtime: 'onnxruntime-node' }), (err: unknown) => err instanceof PolicyError && err.reason === 'model' && err.message.startsWith(`${dir}/policy.onnx: not a model onnxruntime-node can load (`) && !err.message.includes('\n'));
  });
});

describe('loadPolicy: missing files, said plainly', () => {
  it('no folder', async () => {
    const dir = join(tempDir(), 'nope');
    await refused(dir, 'missing', `${dir}: no such policy folder (a policy folder holds policy.onnx and manifest.json)`);
  });

  it('a file where the folder should be', async () => {
    const dir = join(policyFolder('stand', {}), 'manifest.json');
    await refused(dir, 'missing', `${dir}: not a folder (a policy folder holds policy.onnx and manifest.json)`);
  });

  it('no manifest.json', async () => {
    const dir = policyFolder('stand', undefined);
    await refused(dir, 'missing', `${dir}/manifest.json: missing (a policy folder holds policy.onnx and manifest.json)`);
  });

  it('no policy.onnx', async () => {
    const dir = policyFolder(undefined, {});
    await refused(dir, 'missing', `${dir}/policy.onnx: missing (a policy folder holds policy.onnx and manifest.json)`);
  });

  it('an empty folder', async () => {
    const dir = policyFolder(undefined, undefined);
    await refused(dir, 'missing', `${dir}: no policy.onnx and no manifest.json (a policy folder holds policy.onnx and manifest.json)`);
  });
});
