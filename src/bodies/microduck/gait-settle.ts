/**
 * A real duck stands after a walk or a turn before anything else: a gait stopped mid-stride holds
 * one foot in the air and its trunk twisted over it, and a duck left so tips over, or starts its
 * next verb from that stride (the twin's body found it first: a walk started right after a turn
 * fell; on the host firmware standing on the twin the same walk fell 0.9 s in). The servo-bus and
 * bridge ducks both run their stand policy this long after a gait that ended as asked, and end it
 * on the stand's home pose (SETTLE_EASE_MS), which is what their servos then hold.
 */
import type { ControlLoop } from '../../control/control-loop.js';
import type { MissedSlots, VerbResult as LoopResult } from '../../control/skill.js';
import { policySkill } from '../../control/skills/specs.js';
import type { Slot } from '../../policy/slots.js';

export const GAIT_SETTLE_MS = 500;

/**
 * The stand's last part, in which its action fades to nothing (policy.ts's ease_home_ms): the
 * duck is then held on the stand's home pose, its stance, rather than on the stand's reaction to
 * the sway of its last tick, which no longer answers anything once frozen. Frozen after a 1 m
 * walk it was up to 0.12 rad off home (the knees); in the twin, held 30 s, the trunk's pitch went
 * from 0.03-0.05 to -0.17…-0.19 rad and the next walk fell: 3 seeds of 5 through `quackd serve`,
 * 7 of 10 in lock-step after 60 s; eased home, 0.09-0.10 rad and none fell. A real duck's servos
 * hold whatever they are told for as long as it stands idle, so what they are told is the stance.
 */
export const SETTLE_EASE_MS = 200;

/** How long a duck with a camera stands after a kick while the ball rolls on, so the look after it sees where it stopped (the twin's body waits as long). */
export const KICK_SETTLE_MS = 1500;

/**
 * `result`, with the stand policy run `ms` after it when it ended as asked. A stand that did not
 * end well is the result, as long as the gait and the stand together: their ticks, their time and
 * the slots the loop missed in either (a fall in the stand may be the walk's late ticks').
 */
export async function standAfter(loop: Pick<ControlLoop, 'run'>, stand: string, ms: number, result: LoopResult, halt: AbortSignal): Promise<LoopResult> {
  if (result.outcome !== 'done') return result;
  const settle = await loop.run(policySkill(stand, { vx: 0, vy: 0, vyaw: 0 }, { kind: 'duration' }, ms, undefined, Math.min(SETTLE_EASE_MS, ms)), halt);
  if (settle.outcome === 'done') return result;
  const ranMs = result.ranMs !== undefined && settle.ranMs !== undefined ? { ranMs: result.ranMs + settle.ranMs } : {};
  const missed = bothMissed(result.missed, settle.missed);
  const { missed: _, ...stood } = settle;
  return { ...stood, ticks: result.ticks + settle.ticks, ...ranMs, ...(missed !== undefined ? { missed } : {}) };
}

function bothMissed(a: MissedSlots | undefined, b: MissedSlots | undefined): MissedSlots | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return { slots: a.slots + b.slots, longestGapMs: Math.max(a.longestGapMs, b.longestGapMs) };
}

/** `result` of a slot, with the stand after it when it is a gait's (walk, turn). */
export function settleAfterGait(loop: Pick<ControlLoop, 'run'>, stand: string, slot: Slot, result: LoopResult, halt: AbortSignal): Promise<LoopResult> {
  return slot === 'walk' || slot === 'turn' ? standAfter(loop, stand, GAIT_SETTLE_MS, result, halt) : Promise.resolve(result);
}
