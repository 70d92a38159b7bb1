/**
 * A stand-in for a trained walk, made at test time (nothing committed): the bundled gait with a
 * vx range of ±0.5 and a nominal of 0.5, which does not step below |vx| 0.4, as microduck's
 * vel_noise_walk does not step from rest at 0.3 in the twin (shared sim-kit). Its stride per
 * m/s is the bundled one × 0.3/0.5, so at 0.5 it walks as the bundled walk does at 0.3.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gaitGraph } from '../../src/policy/make/graphs.js';
import { jsonText } from '../../src/policy/make/json-text.js';
import { bundledManifest } from '../../src/policy/make/manifests.js';
import type { GaitParams } from '../../src/policy/make/param-types.js';
import { PARAMS } from '../../src/policy/make/params.js';
import { NOMINAL } from '../../src/policy/make/nominal.js';
import { tempDir } from '../helpers/tmp.js';

/** Where it does not step: a command below this is stood on. */
export const GATED_FROM_VX = 0.4;
export const GATED_NOMINAL_VX = 0.5;

/** Writes the policy folder (policy.onnx + manifest.json) into a fresh temp folder; `manifest` adds or replaces fields. */
export function gatedWalkFolder(manifest: Record<string, unknown> = {}): string {
  const gait: GaitParams = {
    ...PARAMS.walk,
    stridePerVx: (PARAMS.walk.stridePerVx * NOMINAL.walk.vx) / GATED_NOMINAL_VX,
    ranges: { ...PARAMS.walk.ranges, vx: [-GATED_NOMINAL_VX, GATED_NOMINAL_VX] },
    deadband: { vx: GATED_FROM_VX, vy: 0, vyaw: 0 },
  };
  const base = bundledManifest('walk', PARAMS);
  const dir = join(tempDir('quackd-gated-walk-'), 'walk');
  mkdirSync(dir);
  writeFileSync(join(dir, 'policy.onnx'), gaitGraph(PARAMS, gait, 'test-gated-walk'));
  const m = {
    ...base,
    name: 'test-gated-walk',
    description: 'a test walk that stands below |vx| 0.4',
    command: { ...base.command, ranges: { ...base.command?.ranges, vx: [...gait.ranges.vx] }, nominal: { vx: GATED_NOMINAL_VX } },
    ...manifest,
  };
  writeFileSync(join(dir, 'manifest.json'), `${jsonText(m)}\n`);
  return dir;
}
