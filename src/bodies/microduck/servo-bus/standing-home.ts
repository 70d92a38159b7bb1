/**
 * The pose a servo-bus duck is calibrated in and `health` checks it against: the one its walk
 * policy stands in, since that is where every walk starts and what the policy's actions are
 * relative to. A policy trained on another model may mean other signs for the same joint (the
 * Open Duck Mini v2's reference stance has the left knee at +1.37 rad where quackd's twin has
 * −1.2): calibrating to the twin's pose under such a policy would write offsets of 2.6 rad.
 */
import { manifestHome } from '../../../policy/manifest.js';
import { defaultLayout } from '../../../policy/layouts.js';
import { readManifest } from '../../../policy/read-manifest.js';
import { robotSlots } from '../../../policy/slots.js';
import { HOME_POSE } from '../mujoco/duck-spec.js';

export interface StandingHome {
  readonly pose: readonly number[];
  /** Whose pose it is, for the lines that show it. */
  readonly from: string;
}

export function standingHome(robot: { readonly name: string; readonly settings: Readonly<Record<string, unknown>> }, dataDir: string): StandingHome {
  const walk = robotSlots(robot, dataDir).walk;
  const m = readManifest(walk.dir).manifest;
  // A folder whose manifest cannot be read is refused by the walk itself; the twin's pose meanwhile.
  if (m === undefined) return { pose: HOME_POSE, from: "the twin's (the walk policy's manifest could not be read)" };
  const layout = m.obs_layout ?? (m.obs_len !== undefined ? defaultLayout(m.obs_len) : undefined);
  return { pose: manifestHome(m, layout), from: walk.from === 'bundled' ? "the bundled walk's" : `the walk policy's (${walk.dir})` };
}
