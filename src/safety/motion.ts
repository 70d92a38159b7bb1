/**
 * Which verbs move a body. A duck names its own gates; an ad-hoc --goal has no author to ask, so
 * on a real body its motion verbs stand behind a confirmation gate (or --yes). Pure.
 */

/** Verbs that move joints or change what holds them (torque on stiffens joints where they are; off is a stop, never gated). */
export const MOTION_VERBS: ReadonlySet<string> = new Set(['walk', 'turn', 'kick', 'search_scan', 'torque', 'drive', 'look', 'look_around', 'turn_body', 'antennas']);

export function motionVerbs(verbs: readonly string[]): string[] {
  return verbs.filter((v) => MOTION_VERBS.has(v));
}

/**
 * The gates a duck with no author to ask gets (--goal, `quackd do`, MCP's default duck): on a real
 * body its motion verbs; a seeded body is a simulator, where nothing physical moves.
 */
export function authorlessGates(body: { readonly seeded?: boolean }, verbs: readonly string[]): string[] {
  return body.seeded === true ? [] : motionVerbs(verbs);
}
