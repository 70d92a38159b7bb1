/**
 * Which verbs move a body. A duck names its own gates; an ad-hoc --goal has no author to ask, so
 * on a real body its motion verbs stand behind a confirmation gate (or --yes). Pure.
 */

/** Verbs that move joints or change what holds them (torque off lets a standing duck fall). */
export const MOTION_VERBS: ReadonlySet<string> = new Set(['walk', 'turn', 'kick', 'search_scan', 'torque', 'drive', 'look', 'look_around', 'turn_body', 'antennas']);

export function motionVerbs(verbs: readonly string[]): string[] {
  return verbs.filter((v) => MOTION_VERBS.has(v));
}
