/** Policy folders for the tests: a bundled one copied, or a graph and manifest written by hand. */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundledPolicyDir, type BundledSlot } from '../../src/policy/bundled.js';
import { tempDir } from '../helpers/tmp.js';

/** A temp folder holding `onnx` (bytes, or a bundled slot's file) and `manifest` (an object, or raw text). */
export function policyFolder(onnx: Uint8Array | BundledSlot | undefined, manifest: object | string | undefined): string {
  const dir = join(tempDir('quackd-policy-'), 'policy');
  mkdirSync(dir);
  if (typeof onnx === 'string') copyFileSync(join(bundledPolicyDir(onnx), 'policy.onnx'), join(dir, 'policy.onnx'));
  else if (onnx !== undefined) writeFileSync(join(dir, 'policy.onnx'), onnx);
  if (manifest !== undefined) writeFileSync(join(dir, 'manifest.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
  return dir;
}
