/**
 * Whether the twin steps its physics as a policy was trained: the model's timestep (its MJCF's
 * `<option timestep>`, or the file an `<include>` brings in; MuJoCo's 0.002 s when none says)
 * and how many steps make a 20 ms control tick (plant.ts advance), against the manifest's
 * `sim: { timestep, decimation }`. A policy trained at 0.005 s × 4 runs on 0.002 s × 10 without
 * failing, only otherwise than it learned: a warning, not a refusal. Read from the files on the
 * main thread (no MuJoCo), so health and a run's first lines can say it before anything opens.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { ManifestFile } from '../../../policy/manifest.js';
import { TIMESTEP } from './duck-spec.js';

/** MuJoCo's own default when no `<option timestep>` is given. */
const MUJOCO_DEFAULT_TIMESTEP = 0.002;
/** The control loop's tick, s (ControlLoop's default periodMs, which every duck uses). */
const TICK_S = 0.02;

/** The `<option timestep>` of an MJCF file, or of the files it includes (depth first); undefined when none says. */
function declaredTimestep(file: string, seen = new Set<string>()): number | undefined {
  if (seen.has(file)) return undefined;
  seen.add(file);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // A missing file is health's model check to name, and the body's to refuse.
    return undefined;
  }
  const own = /<option\b[^>]*\btimestep\s*=\s*"([^"]+)"/.exec(text)?.[1];
  if (own !== undefined && Number.isFinite(Number(own))) return Number(own);
  for (const m of text.matchAll(/<include\b[^>]*\bfile\s*=\s*"([^"]+)"/g)) {
    const inner = declaredTimestep(resolve(dirname(file), m[1] ?? ''), seen);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

/** The twin's physics step, s: the user's model's, else quackd's own duck's. */
export function twinTimestep(mjcf: string | undefined): number {
  return mjcf === undefined ? TIMESTEP : (declaredTimestep(resolve(mjcf)) ?? MUJOCO_DEFAULT_TIMESTEP);
}

const fmt = (n: number): string => String(Number(n.toPrecision(6)));

/** `the twin steps 0.002 s × 10 a tick; trained at 0.005 s × 4 (manifest sim)`, or undefined when they agree or the manifest does not say. */
export function twinTimingWarning(settings: Readonly<Record<string, unknown>>, m: ManifestFile): string | undefined {
  const sim = m.sim;
  if (sim?.timestep === undefined && sim?.decimation === undefined) return undefined;
  const mjcf = typeof settings['mjcf'] === 'string' ? settings['mjcf'] : undefined;
  const step = twinTimestep(mjcf);
  const decimation = Math.max(1, Math.round(TICK_S / step));
  const stepDiffers = sim.timestep !== undefined && Math.abs(sim.timestep - step) > 1e-9;
  const decimationDiffers = sim.decimation !== undefined && sim.decimation !== decimation;
  if (!stepDiffers && !decimationDiffers) return undefined;
  const trained = `${sim.timestep !== undefined ? `${fmt(sim.timestep)} s` : '?'} × ${sim.decimation !== undefined ? String(sim.decimation) : '?'}`;
  const where = mjcf !== undefined ? `${mjcf}'s` : "quackd's duck's";
  return `the twin steps ${fmt(step)} s × ${decimation} a tick (${where} timestep), but the policy was trained at ${trained} (manifest sim)`;
}
