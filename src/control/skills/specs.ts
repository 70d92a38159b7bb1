/**
 * The built-in skills as specs a body hands to ControlLoop.run: the worker makes them from these,
 * in the same language as this module (.js from dist, .ts under tsx).
 */
import { siblingModule } from '../../worker-thread.js';
import type { Json, ModuleSpec } from '../module-spec.js';
import type { HeadingHoldSettings } from './heading-hold.js';

/** Hold the targets where they are; for `durationMs`, or until stopped. */
export function holdSkill(durationMs?: number): ModuleSpec {
  return { module: siblingModule(import.meta.url, 'hold').href, options: durationMs === undefined ? {} : { durationMs } };
}

/** Go to `targets` (rad, one per joint) at the joints' top speed; fails after `timeoutMs`. */
export function poseSkill(targets: readonly number[], options: { readonly toleranceRad?: number; readonly timeoutMs?: number } = {}): ModuleSpec {
  return { module: siblingModule(import.meta.url, 'pose').href, options: { targets, ...options } };
}

/** What ends a policy verb: a distance along the start heading, a yaw change, or the policy's own duration. */
export type PolicyUntil = { readonly kind: 'distance'; readonly metres: number } | { readonly kind: 'yaw'; readonly rad: number } | { readonly kind: 'duration' };

/**
 * Run the policy in `dir` with a velocity command until `until`, at most `timeoutMs`; a straight
 * walk holds its heading as `headingHold` says (heading-hold.ts: its defaults when undefined).
 * With `easeHomeMs` its action fades out over that long before `timeoutMs`, ending on its home pose.
 */
export function policySkill(dir: string, command: { readonly vx: number; readonly vy: number; readonly vyaw: number }, until: PolicyUntil, timeoutMs: number, headingHold?: HeadingHoldSettings | false, easeHomeMs?: number): ModuleSpec {
  const options: { [key: string]: Json } = { dir, command: { ...command }, until: { ...until }, timeoutMs };
  if (headingHold !== undefined) options['heading_hold'] = headingHold === false ? false : { ...headingHold };
  if (easeHomeMs !== undefined) options['ease_home_ms'] = easeHomeMs;
  return { module: siblingModule(import.meta.url, 'policy').href, options };
}

/** Policies to warm while a duck's loop runs (ControlLoop.warm): one spec a folder, so each takes a gap between ticks of its own. */
export function policyWarmups(policyDirs: readonly string[]): ModuleSpec[] {
  return policyDirs.map((dir) => ({ module: siblingModule(import.meta.url, 'policy').href, options: { dirs: [dir] } }));
}

/** The built-in skills warmed before a duck's loop ticks (ControlLoopOptions.warm), with the policies in `policyDirs` loaded. */
export function skillWarmups(policyDirs: readonly string[]): ModuleSpec[] {
  return [{ module: siblingModule(import.meta.url, 'hold').href }, { module: siblingModule(import.meta.url, 'pose').href }, { module: siblingModule(import.meta.url, 'policy').href, options: { dirs: [...policyDirs] } }];
}
