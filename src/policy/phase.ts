/**
 * The skill phase φ a quackd-gait-1 policy reads, at policy time t (s since it started): the
 * same rule for the control loop's policy skill and the tuner's twin loop.
 */
import type { PolicyManifest } from './manifest.js';

/** (t / period_s) mod 1 for a gait; a kick (episodic, end_phase) runs 0 → end_phase once and stays there; 0 without a period. */
export function phaseAt(manifest: Pick<PolicyManifest, 'kind' | 'command'>, t: number): number {
  const command = manifest.command;
  const period = command?.period_s;
  if (period === undefined || !(period > 0)) return 0;
  const end = command?.end_phase;
  if (manifest.kind === 'episodic' || end !== undefined) return Math.min(t / period, end ?? 1);
  const cycles = t / period;
  return cycles - Math.floor(cycles);
}
