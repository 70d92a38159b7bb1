/**
 * A policy folder's manifest.json as the main thread reads it, with no ONNX runtime: for what a
 * body needs before it runs the policy (the command to send, the model's joint names and home
 * pose) and for the warnings `policy list`, `health` and a run's first lines show. A manifest
 * that cannot be read gives nothing here; the verb that loads the folder refuses it in one line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseManifest, type ManifestFile } from './manifest.js';
import { manifestWarnings } from './manifest-warnings.js';

export interface ReadManifest {
  readonly manifest?: ManifestFile;
  /** Keys no reader knows, one line each (manifest-warnings.ts). */
  readonly warnings: readonly string[];
}

export function readManifest(dir: string): ReadManifest {
  const file = join(dir, 'manifest.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { warnings: [] };
  }
  const warnings = manifestWarnings(text);
  try {
    return { manifest: parseManifest(text, file), warnings };
  } catch {
    return { warnings };
  }
}
