/**
 * Whether two policies stand in one robot's stance: each policy's actions are relative to its home
 * (its manifest's, or its layout's), and a robot's own policies agree on it within a few
 * hundredths. The Open Duck Mini v2's knees stand at +1.37 rad, the legacy Microduck's at −1.2, the
 * alpha Microduck's at 0: a verb whose policy stands otherwise than the one before it would move
 * the duck from one stance to the other.
 */
import { defaultLayout } from './layouts.js';
import { manifestHome, type ManifestFile } from './manifest.js';
import { MICRODUCK_JOINTS } from './microduck.js';

/** A joint this far apart between two policies' stances is two robots' poses, not one robot's tuning. */
export const STANCE_APART_RAD = 0.5;

/** How two stances stand apart: the joint farthest apart, where each puts it, and how many joints are over. */
export interface StanceApart {
  readonly joint: string;
  readonly mine: number;
  readonly theirs: number;
  readonly joints: number;
}

export const stanceOf = (m: ManifestFile): readonly number[] => manifestHome(m, m.obs_layout ?? (m.obs_len !== undefined ? defaultLayout(m.obs_len) : undefined));

/** How `mine`'s stance stands apart from `theirs`', or undefined where they are one robot's. */
export function stanceApart(mine: ManifestFile, theirs: ManifestFile): StanceApart | undefined {
  const a = stanceOf(mine);
  const b = stanceOf(theirs);
  let worst: StanceApart | undefined;
  let joints = 0;
  a.forEach((v, i) => {
    const w = b[i] ?? v;
    if (!(Math.abs(v - w) > STANCE_APART_RAD)) return;
    joints += 1;
    if (worst === undefined || Math.abs(v - w) > Math.abs(worst.mine - worst.theirs)) worst = { joint: MICRODUCK_JOINTS[i] ?? `joint ${i}`, mine: v, theirs: w, joints: 0 };
  });
  return worst === undefined ? undefined : { ...worst, joints };
}

const signed = (v: number): string => `${v >= 0 ? '+' : ''}${v.toFixed(2)}`;

/** `left_knee at -1.20 rad against the walk's +1.37 (4 joints over 0.5 rad apart)`. */
export function describeApart(d: StanceApart, theirs: string): string {
  const more = d.joints > 1 ? ` (${d.joints} joints over ${STANCE_APART_RAD} rad apart)` : '';
  return `${d.joint} at ${signed(d.mine)} rad against ${theirs} ${signed(d.theirs)}${more}`;
}
