/**
 * The bundled policy files: `npm run make:policies` gives the committed bytes again, params.ts
 * stays in the form a tuner writes, and Debian's onnx.checker accepts every file.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { BUNDLED_SLOTS, bundledPolicyDir } from '../../src/policy/bundled.js';
import { PARAMS } from '../../src/policy/make/params.js';
import { PARAMS_FILE, renderParams } from '../../src/policy/make/params-file.js';
import { skipOutsideCi } from '../helpers/skip.js';
import { tempDir } from '../helpers/tmp.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLED = join(ROOT, 'src/policy/bundled');

describe('bundled policies: the files', () => {
  it('npm run make:policies writes the committed bytes again', async () => {
    const out = tempDir('quackd-make-');
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/policy/make/make-policies.ts', out], { cwd: ROOT, timeout: 60_000 });
    assert.deepEqual(readdirSync(BUNDLED).sort(), [...BUNDLED_SLOTS].sort(), 'no stale or missing slot in src/policy/bundled');
    for (const slot of BUNDLED_SLOTS) {
      for (const file of ['policy.onnx', 'manifest.json']) {
        assert.ok(readFileSync(join(out, slot, file)).equals(readFileSync(join(BUNDLED, slot, file))), `${slot}/${file} differs from a fresh make:policies: run it and commit`);
      }
    }
  });

  it('params.ts is in the form renderParams writes (what a tuner writes back)', () => {
    assert.equal(readFileSync(PARAMS_FILE, 'utf8'), renderParams(PARAMS));
  });

  // Debian's python3-onnx lives under /usr/bin/python3, which a pyenv on PATH may shadow.
  const python = ['/usr/bin/python3', 'python3'].find((py) => spawnSync(py, ['-c', 'import onnx'], { stdio: 'ignore' }).status === 0);
  it('onnx.checker (Debian python3-onnx) accepts every bundled file, shapes inferred', { skip: skipOutsideCi(python === undefined ? 'python3-onnx is not installed (apt-get install python3-onnx)' : undefined) }, () => {
    const files = BUNDLED_SLOTS.map((slot) => join(bundledPolicyDir(slot), 'policy.onnx'));
    const script = 'import onnx, sys\nfor f in sys.argv[1:]:\n    onnx.checker.check_model(onnx.load(f), full_check=True)\nprint("ok", len(sys.argv) - 1)';
    const r = spawnSync(python ?? 'python3', ['-c', script, ...files], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), `ok ${BUNDLED_SLOTS.length}`);
  });
});
