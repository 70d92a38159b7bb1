/**
 * A robot's own MJCF as the twin is asked to open it: the `mjcf` settings, and from the walk
 * policy's manifest the names of its 14 joints (`joints`) and the pose to start in (`home`).
 * Read on the main thread with no ONNX runtime: only manifest.json. A manifest that cannot be
 * read leaves the Microduck names and the legacy pose; the walk itself then refuses the folder.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defaultLayout } from '../../../policy/layouts.js';
import { manifestHome, parseManifest, type ManifestFile } from '../../../policy/manifest.js';
import type { Json } from '../../../control/module-spec.js';
import type { DuckModel } from './anatomy.js';

export interface UserModelSettings {
  readonly mjcf?: string | undefined;
  readonly mjcf_gyro?: string | undefined;
  readonly mjcf_framequat?: string | undefined;
  readonly mjcf_camera?: string | undefined;
}

/** A policy folder's manifest.json, or undefined when it cannot be read (loading the policy then says why). */
export function manifestIn(dir: string): ManifestFile | undefined {
  const file = join(dir, 'manifest.json');
  try {
    return parseManifest(readFileSync(file, 'utf8'), file);
  } catch {
    return undefined;
  }
}

/** The model to open, or undefined for quackd's own duck. */
export function userModel(settings: UserModelSettings, walkDir: string): DuckModel | undefined {
  if (settings.mjcf === undefined) return undefined;
  const m = manifestIn(walkDir);
  const layout = m?.obs_layout ?? (m?.obs_len !== undefined ? defaultLayout(m.obs_len) : undefined);
  return {
    mjcf: resolve(settings.mjcf),
    ...(m?.joints !== undefined ? { joints: m.joints, jointsFrom: "the walk policy's joints" } : {}),
    home: manifestHome(m ?? {}, layout),
    ...(settings.mjcf_gyro !== undefined ? { gyro: settings.mjcf_gyro } : {}),
    ...(settings.mjcf_framequat !== undefined ? { framequat: settings.mjcf_framequat } : {}),
    ...(settings.mjcf_camera !== undefined ? { camera: settings.mjcf_camera } : {}),
  };
}

/** The model as the control worker's plant options carry it (control-plant.ts parses it back): every field a string or a list. */
export function modelJson(model: DuckModel): Json {
  return Object.fromEntries(Object.entries(model).filter(([, v]) => v !== undefined)) as Record<string, string | readonly string[] | readonly number[]>;
}
