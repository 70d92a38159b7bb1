/**
 * Both ONNX runtimes: each bundled policy loads on onnxruntime-node and on onnxruntime-web and
 * the two agree; where onnxruntime-node cannot load, `auto` falls back to the WebAssembly one
 * and says why.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { BUNDLED_SLOTS, bundledPolicyDir } from '../../src/policy/bundled.js';
import { loadPolicy } from '../../src/policy/load.js';
import type { Policy } from '../../src/policy/policy.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Observations near upright with every input moving: a fixed LCG, so a failure can be replayed. */
function observations(width: number, count: number): Float32Array[] {
  let seed = 12345;
  const next = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648 - 0.5;
  };
  return Array.from({ length: count }, () => {
    const obs = Float32Array.from({ length: width }, () => next());
    obs[5] = -1 + Math.abs(next()) * 0.1;
    return obs;
  });
}

describe('policy runtimes', () => {
  const open: Policy[] = [];
  after(async () => {
    for (const p of open) await p.close();
  });

  for (const slot of BUNDLED_SLOTS) {
    it(`${slot}: onnxruntime-node and onnxruntime-web load it and agree to 1e-6`, async () => {
      const node = await loadPolicy(bundledPolicyDir(slot), { runtime: 'onnxruntime-node' });
      const web = await loadPolicy(bundledPolicyDir(slot), { runtime: 'onnxruntime-web' });
      open.push(node, web);
      assert.equal(node.runtime, 'onnxruntime-node');
      assert.equal(web.runtime, 'onnxruntime-web');
      assert.deepEqual(web.manifest, node.manifest);
      for (const obs of observations(node.manifest.obs_len, 50)) {
        const [a, b] = await Promise.all([node.run(obs), web.run(obs)]);
        assert.equal(a.length, 14);
        a.forEach((v, i) => assert.ok(Math.abs(v - (b[i] ?? Number.NaN)) < 1e-6, `joint ${i}: node ${v}, web ${b[i]}`));
        assert.ok(a.some((v) => v !== 0), 'a moving observation moves something');
      }
    });
  }

  it('auto prefers onnxruntime-node', async () => {
    const policy = await loadPolicy(bundledPolicyDir('stand'));
    open.push(policy);
    assert.equal(policy.runtime, 'onnxruntime-node');
  });

  it('auto falls back to onnxruntime-web where the native binding cannot load, and says why', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--import', './test/policy/fixtures/no-onnxruntime-node.mjs', 'test/policy/fixtures/load-walk.ts'], { cwd: ROOT, timeout: 60_000 });
    const out = JSON.parse(stdout) as { runtime: string; fallback: string | null; actions: number[] };
    assert.equal(out.runtime, 'onnxruntime-web');
    assert.equal(out.fallback, 'onnxruntime-node cannot load here (onnxruntime_binding.node: cannot open shared object file (simulated by the test))');
    // The same observation as the child's, on the native runtime here: the same actions.
    const native = await loadPolicy(bundledPolicyDir('walk'), { runtime: 'onnxruntime-node' });
    open.push(native);
    const obs = new Float32Array(53);
    obs[5] = -1;
    obs[48] = 0.2;
    obs[51] = 1;
    const expected = Array.from(await native.run(obs));
    assert.equal(out.actions.length, 14);
    out.actions.forEach((v, i) => assert.ok(Math.abs(v - (expected[i] ?? Number.NaN)) < 1e-6, `joint ${i}: web ${v}, node ${expected[i]}`));
    assert.ok(expected.some((v) => v !== 0));
  });

  it('run() takes exactly obs_len floats; close() twice is one close', async () => {
    const policy = await loadPolicy(bundledPolicyDir('walk'), { runtime: 'onnxruntime-node' });
    await assert.rejects(policy.run(new Float32Array(51)), { name: 'RangeError', message: `policy ${bundledPolicyDir('walk')}: observation has 51 values, expected 53` });
    await Promise.all([policy.close(), policy.close()]);
    await policy.close();
  });
});
