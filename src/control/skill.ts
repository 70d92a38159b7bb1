/**
 * What drives the joints during a verb: a skill turns each tick's reading into desired targets,
 * which the safety stage then limits. A policy skill (observation builder + ONNX policy, target =
 * home + scale × action) is one; `hold` and `pose` (src/control/skills/, specs.ts names them)
 * are others. A skill
 * lives in the control worker and is made there from a module specifier and JSON options, so a
 * body names its skills without the main thread ever holding one.
 *
 * `tick` may answer with a promise (onnxruntime's run is async): the loop waits for it within the
 * tick, up to the skill timeout, and still honours a stop meanwhile.
 */
import type { Json } from './module-spec.js';
import type { JointSpec, SensorFrame } from './plant.js';

export type SkillOutput = Float64Array | readonly number[] | 'done';

export interface SkillContext {
  readonly joints: readonly JointSpec[];
  readonly periodMs: number;
}

export interface Skill {
  /** The verb's first tick, before its first `tick`; `held` is where the targets are now. */
  start?(frame: SensorFrame, held: Float64Array): void | Promise<void>;
  /** Desired targets for this tick (rad, one per joint), or 'done'; tMs is time since start on the loop's grid. */
  tick(frame: SensorFrame, tMs: number): SkillOutput | Promise<SkillOutput>;
  /** The verb ended (done, stopped or failed): let go of what the skill holds. */
  end?(): void;
}

/** What a skill module exports (as `createSkill` unless the spec names another export). */
export type SkillFactory = (options: Json | undefined, context: SkillContext) => Skill | Promise<Skill>;

export type FailReason = 'fell' | 'fallen' | 'skill' | 'timeout';

/**
 * Slots of the loop's grid a verb had no tick on, its loop too late to run them (a loaded host):
 * how many, and the longest gap between two of its ticks, ms. A gait whose time goes on across
 * such a gap sent the servos nothing meanwhile, which a fall then explains.
 */
export interface MissedSlots {
  readonly slots: number;
  readonly longestGapMs: number;
}

/**
 * How a verb ended. `endTick` is the index of the tick it ended on (-1: its skill could not be
 * made); `ticks` how many ticks its skill ran; `ranMs` the time from its first tick to its last
 * on the loop's schedule, missed ticks included (a loaded machine skips ticks, the gait's time
 * goes on): absent when its skill never ran; `missed`, those slots, when there were any.
 */
export type VerbResult = (
  | { readonly outcome: 'done'; readonly ticks: number; readonly endTick: number; readonly ranMs?: number }
  | {
      readonly outcome: 'stopped';
      readonly ticks: number;
      readonly endTick: number;
      readonly ranMs?: number;
      /** stop(): the index of the first tick to start after it was called (endTick ≤ this) */
      readonly requestedTick?: number;
    }
  | { readonly outcome: 'failed'; readonly reason: FailReason; readonly message: string; readonly ticks: number; readonly endTick: number; readonly ranMs?: number }
) & { readonly missed?: MissedSlots };

/** One line, as a verb result reads: `done`, `stopped`, `failed — fell`. */
export function describeVerb(result: VerbResult): string {
  return result.outcome === 'failed' ? `failed — ${result.message}` : result.outcome;
}
