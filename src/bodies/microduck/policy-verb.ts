/**
 * What the real ducks' motion verbs share, the bridge's (jsonrpc) and the servo buses' alike: the
 * command a slot's manifest gives a verb, the verb's policy run in the control loop with the stand
 * after it, and how long it ran. Each body keeps what differs: how torque goes on, what it watches
 * while the policy runs, and how its results read.
 */
import type { ControlLoop } from '../../control/control-loop.js';
import { ControlError } from '../../control/errors.js';
import type { VerbResult as LoopResult } from '../../control/skill.js';
import type { HeadingHoldSettings } from '../../control/skills/heading-hold.js';
import { policySkill, type PolicyUntil } from '../../control/skills/specs.js';
import { commandFor, type Axis, type Commanded } from '../../policy/command.js';
import { readManifest } from '../../policy/read-manifest.js';
import type { Slot } from '../../policy/slots.js';
import { describeApart, stanceApart } from '../../policy/stance.js';
import { BodyError, type VerbResult } from '../body.js';
import { KICK_SETTLE_MS, settleAfterGait, standAfter } from './gait-settle.js';

/** One motion verb as the loop runs it: `verb` names it in a failure, `slot` is the policy that moves. */
export interface PolicyVerb {
  readonly verb: string;
  readonly slot: Slot;
  readonly command: { readonly vx: number; readonly vy: number; readonly vyaw: number };
  readonly until: PolicyUntil;
  readonly timeoutMs: number;
}

/** How a duck runs its verbs: its loop, each slot's folder, a straight walk's heading hold. */
export interface VerbLoop {
  readonly loop: ControlLoop;
  readonly dir: (slot: Slot) => string;
  /** The robot's `heading_hold`; undefined, the policy skill's defaults. */
  readonly headingHold: HeadingHoldSettings | false | undefined;
  /** A duck that looks for the ball after a kick stands while it rolls on, so the look sees where it stopped. */
  readonly standAfterKick?: boolean;
}

/**
 * The command the slot's manifest gives for this verb (policy/command.ts), or a refusal; with no
 * folder (a body opened without a loop) the command's own defaults answer.
 */
export function verbCommand(dir: string | undefined, slot: Slot, axis: Axis, direction: number, asked?: number): Commanded | VerbResult {
  const c = commandFor(dir !== undefined ? readManifest(dir).manifest : undefined, axis, direction, asked);
  return typeof c === 'string' ? { ok: false, summary: `${slot}: ${c}` } : c;
}

/**
 * Why a slot's policy may not move this duck: it stands in another stance than the walk's (an
 * Open Duck Mini v2 walk beside the bundled Microduck turn), so running it would take the duck from
 * the walk's stance to its own at the joints' top speed. Undefined when it may (or a manifest is
 * unreadable: the policy's own load says why).
 */
export function stanceRefusal(dir: (slot: Slot) => string, slot: Slot): string | undefined {
  if (slot === 'walk' || dir(slot) === dir('walk')) return undefined;
  const mine = readManifest(dir(slot)).manifest;
  const walk = readManifest(dir('walk')).manifest;
  const apart = mine !== undefined && walk !== undefined ? stanceApart(mine, walk) : undefined;
  return apart === undefined ? undefined : `the ${slot} policy stands in another stance than the walk's (${describeApart(apart, "the walk's")}): it would move the duck from one to the other; give the ${slot} slot a policy of the walk's robot (quackd policy load ${slot} DIR)`;
}

/**
 * The policy a gait settles with: the stand's, unless it stands otherwise than the gait; then the
 * gait's own at a zero command, eased to its home (the Open Duck Mini v2's walk is trained to stand
 * on a zero command, and no other policy of its robot is at hand).
 */
function settlingDir(dir: (slot: Slot) => string, slot: Slot): string {
  const stand = readManifest(dir('stand')).manifest;
  const gait = readManifest(dir(slot)).manifest;
  return stand !== undefined && gait !== undefined && stanceApart(stand, gait) !== undefined ? dir(slot) : dir('stand');
}

/**
 * The verb's policy until `until` or its time limit, then the stand after a gait (gait-settle.ts);
 * a loop that cannot run it (closed, crashed, busy) is the verb's one-line BodyError. The bodies
 * ask stanceRefusal first, before torque goes on.
 */
export async function runPolicyVerb({ loop, dir, headingHold, standAfterKick }: VerbLoop, v: PolicyVerb, halt: AbortSignal): Promise<LoopResult> {
  try {
    let result = await loop.run(policySkill(dir(v.slot), v.command, v.until, v.timeoutMs, headingHold), halt);
    result = await settleAfterGait(loop, { gait: dir(v.slot), stand: settlingDir(dir, v.slot) }, v.slot, result, halt);
    if (standAfterKick === true && (v.slot === 'kick_left' || v.slot === 'kick_right')) result = await standAfter(loop, dir('stand'), KICK_SETTLE_MS, result, halt);
    return result;
  } catch (err) {
    if (err instanceof ControlError) throw new BodyError(`${v.verb}: ${err.message}`);
    throw err;
  }
}

/** How long a verb's policy ran, in seconds to a tenth: its ticks on the loop's grid. */
export function ranSeconds(result: LoopResult, periodMs: number): number {
  return Math.round((result.ranMs ?? result.ticks * periodMs) / 100) / 10;
}

/**
 * `the control loop missed 3 ticks (a gap of 80 ms at worst: the host too busy)` when a verb that
 * fell had slots its loop was too late to run: its servos were sent nothing meanwhile, which may be
 * why. Said only with a fall: a verb that went well rode the gap out.
 */
export function missedNote(result: LoopResult): string | undefined {
  const m = result.missed;
  if (m === undefined || result.outcome !== 'failed' || result.reason !== 'fell') return undefined;
  return `the control loop missed ${m.slots} tick${m.slots === 1 ? '' : 's'} (a gap of ${Math.round(m.longestGapMs)} ms at worst: the host too busy)`;
}
