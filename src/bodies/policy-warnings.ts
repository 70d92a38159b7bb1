/**
 * What is worth a warning about a robot's policy slots, short of a refusal: manifest keys no
 * reader knows (policy/manifest-warnings.ts), what the body does otherwise than the policy was
 * trained (the twin's physics step: BodyEntry.policyMismatch), and a slot whose policy stands in
 * another stance than the walk's (an Open Duck Mini v2 walk beside the bundled Microduck turn: the
 * knees bend the other way). Read from the manifests alone, on the main thread, so `policy list`,
 * `health` and a run's first lines say the same, cheaply.
 */
import type { ManifestFile } from '../policy/manifest.js';
import { readManifest } from '../policy/read-manifest.js';
import { describeApart, stanceApart } from '../policy/stance.js';
import { SLOTS, robotSlots, type Slot } from '../policy/slots.js';
import type { Robot } from '../runtime/fleet.js';

/** How this slot's stance stands apart from the walk's, or undefined where the two are one robot's. */
function stanceWarning(manifest: ManifestFile, walk: ManifestFile): string | undefined {
  const apart = stanceApart(manifest, walk);
  return apart === undefined ? undefined : `stands in another stance than the walk: ${describeApart(apart, "the walk's")}; a real duck refuses its verbs (they would move it from one stance to the other; the twin runs them): give this slot a policy of the walk's robot`;
}

/** The warnings about the policy in `dir` filling a slot of `robot`, one line each; `walkDir`, the walk slot's folder, to compare stances with. */
export function slotWarnings(robot: Pick<Robot, 'entry' | 'settings'>, dir: string, walkDir?: string): string[] {
  const { manifest, warnings } = readManifest(dir);
  const mismatch = manifest !== undefined ? robot.entry.policyMismatch?.(robot.settings, manifest) : undefined;
  const walk = walkDir !== undefined && walkDir !== dir ? readManifest(walkDir).manifest : undefined;
  const stance = manifest !== undefined && walk !== undefined ? stanceWarning(manifest, walk) : undefined;
  return [...warnings, ...(mismatch !== undefined ? [mismatch] : []), ...(stance !== undefined ? [stance] : [])];
}

/**
 * Every slot's warnings, `walk: home_pose: unknown field, ignored (did you mean home?)`; slots
 * that share a folder and a warning say it once (`walk, turn: …`). [] for a robot without policies.
 */
export function robotPolicyWarnings(robot: Pick<Robot, 'name' | 'entry' | 'settings'>, dataDir: string): string[] {
  if (robot.entry.policies !== true) return [];
  const slots = robotSlots(robot, dataDir);
  const bySlot = new Map<string, Slot[]>();
  for (const slot of SLOTS) {
    for (const w of slotWarnings(robot, slots[slot].dir, slots.walk.dir)) bySlot.set(w, [...(bySlot.get(w) ?? []), slot]);
  }
  return [...bySlot].map(([w, slots]) => `${slots.join(', ')}: ${w}`);
}

/**
 * The warnings a run shows under its header: robotPolicyWarnings, or none where there is no data
 * directory or the recorded slots cannot be read (the run itself says why, in its own error).
 */
export function runWarnings(robot: Pick<Robot, 'name' | 'entry' | 'settings'>, dataDir: string | undefined): string[] {
  if (dataDir === undefined) return [];
  try {
    return robotPolicyWarnings(robot, dataDir);
  } catch {
    return [];
  }
}
