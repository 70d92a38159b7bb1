/**
 * What is worth a warning about a robot's policy slots, short of a refusal: manifest keys no
 * reader knows (policy/manifest-warnings.ts), what the body does otherwise than the policy was
 * trained (the twin's physics step: BodyEntry.policyMismatch), and a slot whose policy stands in
 * another stance than the walk's (an Open Duck Mini v2 walk beside the bundled Microduck turn: the
 * knees bend the other way). Read from the manifests alone, on the main thread, so `policy list`,
 * `health` and a run's first lines say the same, cheaply.
 */
import { defaultLayout } from '../policy/layouts.js';
import { manifestHome, type ManifestFile } from '../policy/manifest.js';
import { MICRODUCK_JOINTS } from '../policy/microduck.js';
import { readManifest } from '../policy/read-manifest.js';
import { SLOTS, robotSlots, type Slot } from '../policy/slots.js';
import type { Robot } from '../runtime/fleet.js';

/**
 * A joint this far apart between two slots' stances is two robots' poses, not one robot's tuning:
 * the Open Duck Mini v2's knees stand at +1.37 rad, the legacy Microduck's at −1.2, the alpha
 * Microduck's at 0; a robot's own policies agree within a few hundredths.
 */
const STANCE_APART_RAD = 0.5;

const stanceOf = (m: ManifestFile): readonly number[] => manifestHome(m, m.obs_layout ?? (m.obs_len !== undefined ? defaultLayout(m.obs_len) : undefined));
const signed = (v: number): string => `${v >= 0 ? '+' : ''}${v.toFixed(2)}`;

/** How this slot's stance stands apart from the walk's, or undefined where the two are one robot's. */
function stanceWarning(manifest: ManifestFile, walk: ManifestFile): string | undefined {
  const mine = stanceOf(manifest);
  const theirs = stanceOf(walk);
  const apart = mine.map((v, i) => ({ joint: MICRODUCK_JOINTS[i] ?? `joint ${i}`, mine: v, walk: theirs[i] ?? v, by: Math.abs(v - (theirs[i] ?? v)) })).filter((d) => d.by > STANCE_APART_RAD);
  const worst = apart.reduce<(typeof apart)[number] | undefined>((a, d) => (a === undefined || d.by > a.by ? d : a), undefined);
  if (worst === undefined) return undefined;
  const more = apart.length > 1 ? ` (${apart.length} joints over ${STANCE_APART_RAD} rad apart)` : '';
  return `stands in another stance than the walk: ${worst.joint} at ${signed(worst.mine)} rad against the walk's ${signed(worst.walk)}${more}; a verb after a walk would move the duck from one to the other: give this slot a policy of the walk's robot`;
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
