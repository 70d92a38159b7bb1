/**
 * `npm run make:policies [OUT_DIR]`: writes the bundled policies, `<slot>/policy.onnx` and
 * `<slot>/manifest.json`, from params.ts into src/policy/bundled/ (or OUT_DIR). The same params
 * always give the same bytes: a test regenerates them into a temp folder and compares with the
 * committed files. A tuner calls makePolicies(params) in memory and never touches the disk.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUNDLED_SLOTS, type BundledSlot } from '../bundled.js';
import { jsonText } from './json-text.js';
import { gaitGraph, kickGraph, standGraph } from './graphs.js';
import { bundledManifest } from './manifests.js';
import type { PolicyParams } from './param-types.js';
import { PARAMS } from './params.js';

export interface GeneratedPolicy {
  readonly slot: BundledSlot;
  readonly onnx: Uint8Array;
  /** manifest.json's text. */
  readonly manifest: string;
}

function graph(slot: BundledSlot, p: PolicyParams): Uint8Array {
  const name = `quackd-${slot.replace('_', '-')}`;
  switch (slot) {
    case 'walk':
      return gaitGraph(p, p.walk, name);
    case 'turn':
      return gaitGraph(p, p.turn, name);
    case 'kick_left':
      return kickGraph(p, 'left', name);
    case 'kick_right':
      return kickGraph(p, 'right', name);
    case 'stand':
      return standGraph(p, name);
  }
}

export function makePolicies(params: PolicyParams = PARAMS): GeneratedPolicy[] {
  return BUNDLED_SLOTS.map((slot) => ({ slot, onnx: graph(slot, params), manifest: `${jsonText(bundledManifest(slot, params))}\n` }));
}

export function writePolicies(outDir: string, params: PolicyParams = PARAMS): string[] {
  const written: string[] = [];
  for (const p of makePolicies(params)) {
    const dir = join(outDir, p.slot);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'policy.onnx'), p.onnx);
    writeFileSync(join(dir, 'manifest.json'), p.manifest);
    written.push(dir);
  }
  return written;
}

export const BUNDLED_DIR = fileURLToPath(new URL('../bundled/', import.meta.url));

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const out = process.argv[2] ?? BUNDLED_DIR;
  for (const dir of writePolicies(out)) console.log(`wrote ${dir}/policy.onnx and manifest.json`);
}
