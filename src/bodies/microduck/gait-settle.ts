/**
 * A real duck stands after a walk or a turn before anything else: a gait stopped mid-stride holds
 * one foot in the air and its trunk twisted over it, and a duck left so tips over, or starts its
 * next verb from that stride (the twin's body found it first: a walk started right after a turn
 * fell; on the host firmware standing on the twin the same walk fell 0.9 s in). The servo-bus and
 * bridge ducks both run their stand policy this long after a gait that ended as asked, and end it
 * on the stand's home pose (SETTLE_EASE_MS), which is what their servos then hold.
 *
 * Before the stand, the gait closes its stride (settleAfterGait): stopped mid-step, the stand
 * held the feet where they were, one ahead of the other, and the next walk started its first
 * step from there as if from feet side by side. Seen as a walk that fell 1-2.5 s in, after a held
 * duck's stand or a short walk, on the servo bus and the host firmware in the twin. In the
 * lock-step twin with the servos' answer two periods late (a bus's read-to-goal time, a loaded
 * host), a walk of 0.3-0.9 s, this settle, 2 s held, then a 3 s walk: 5 of 24 fell (seeds 1-6,
 * test/bodies/microduck/stride-close.test.ts); with one stride in place first, none of those 24
 * and none of 40 more (seeds 7-16).
 */
import type { ControlLoop } from '../../control/control-loop.js';
import type { MissedSlots, VerbResult as LoopResult } from '../../control/skill.js';
import type { ModuleSpec } from '../../control/module-spec.js';
import { policySkill } from '../../control/skills/specs.js';
import { readManifest } from '../../policy/read-manifest.js';
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
export function standAfter(loop: Pick<ControlLoop, 'run'>, stand: string, ms: number, result: LoopResult, halt: AbortSignal): Promise<LoopResult> {
  return followedBy(loop, policySkill(stand, STILL, { kind: 'duration' }, ms, undefined, Math.min(SETTLE_EASE_MS, ms)), result, halt);
}

const STILL = { vx: 0, vy: 0, vyaw: 0 } as const;

/** `result`, with `next` run after it when it ended as asked; a `next` that did not end well is the result, counting both. */
async function followedBy(loop: Pick<ControlLoop, 'run'>, next: ModuleSpec, result: LoopResult, halt: AbortSignal): Promise<LoopResult> {
  if (result.outcome !== 'done') return result;
  const after = await loop.run(next, halt);
  if (after.outcome === 'done') return result;
  const ranMs = result.ranMs !== undefined && after.ranMs !== undefined ? { ranMs: result.ranMs + after.ranMs } : {};
  const missed = bothMissed(result.missed, after.missed);
  const { missed: _, ...ended } = after;
  return { ...ended, ticks: result.ticks + after.ticks, ...ranMs, ...(missed !== undefined ? { missed } : {}) };
}

function bothMissed(a: MissedSlots | undefined, b: MissedSlots | undefined): MissedSlots | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return { slots: a.slots + b.slots, longestGapMs: Math.max(a.longestGapMs, b.longestGapMs) };
}

/** One period of a gait's phase clock (ms), or undefined for a policy without one (the Open Duck Mini v2's walk counts its own). */
function strideMs(gait: string): number | undefined {
  const m = readManifest(gait).manifest;
  // A cyclic phase, as phaseAt reads it: a period, and neither an episode nor an end phase.
  const period = m !== undefined && m.kind !== 'episodic' && m.command?.end_phase === undefined ? m.command?.period_s : undefined;
  return period !== undefined && period > 0 ? Math.round(period * 1000) : undefined;
}

/**
 * `result` of a slot. After a gait (walk, turn) that ended as asked: its stride closed, then the
 * stand (`stand`) for GAIT_SETTLE_MS. The stride: the gait steps one more period of its phase at a
 * zero twist, in place, so the feet come back side by side under the trunk.
 */
export async function settleAfterGait(loop: Pick<ControlLoop, 'run'>, dirs: { readonly gait: string; readonly stand: string }, slot: Slot, result: LoopResult, halt: AbortSignal): Promise<LoopResult> {
  if (slot !== 'walk' && slot !== 'turn') return result;
  const stride = strideMs(dirs.gait);
  const closed = stride !== undefined ? await followedBy(loop, policySkill(dirs.gait, STILL, { kind: 'duration' }, stride, false), result, halt) : result;
  return standAfter(loop, dirs.stand, GAIT_SETTLE_MS, closed, halt);
}
