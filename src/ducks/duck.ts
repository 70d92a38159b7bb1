/**
 * A Duck: one deliberation job, parsed from a `.duck` file (Markdown with YAML front matter):
 * which body it expects, which verbs it may use, its budgets and gates, and the text the pilot
 * reads (role, numbered strategy, optional sections).
 */
import type { BodyKey } from '../bodies/body.js';
import type { FlockSpec } from '../flock/spec.js';

export interface Budgets {
  /** Body verbs performed (or, under --dry-run, that would have been). */
  readonly steps: number;
  /** Provider calls. */
  readonly llm_calls: number;
  /** Wall-clock seconds for the whole run. */
  readonly seconds: number;
}

export const DEFAULT_BUDGETS: Budgets = { steps: 12, llm_calls: 20, seconds: 60 };

/** `ball_displaced_m >= 0.3`: a check quackd makes itself before it believes a declared success. */
export interface SuccessCheck {
  readonly metric: string;
  readonly op: '>=' | '>' | '<=' | '<' | '==';
  readonly value: number;
}

export interface Duck {
  /** The file stem or starter name, e.g. `find-and-kick`. */
  readonly name: string;
  /** Where it came from, for error messages (a path, or `starter:NAME`, or `--goal`). */
  readonly source: string;
  /** One line for listings. */
  readonly description?: string;
  readonly robot: BodyKey;
  /** The allowlist of body verbs (declare_success and declare_failure are always allowed). */
  readonly verbs: readonly string[];
  readonly budgets: Budgets;
  readonly confirm: readonly string[];
  readonly successWhen: readonly SuccessCheck[];
  /** The Markdown the pilot reads: role, numbered strategy, sections. */
  readonly text: string;
  /**
   * A flock duck's members and plan: `quackd run` coordinates them (src/flock); each member runs
   * this duck. `confirm` then holds the plan's gated verbs too, so a run of it anywhere (another
   * Pi's `quackd serve`) asks before them, and the coordinator answers.
   */
  readonly flock?: FlockSpec;
  /** 1-based line of each entry of `verbs` and `confirm`, and of `robot`, for error messages. */
  readonly lines: {
    readonly verbs: readonly number[];
    readonly confirm: readonly number[];
    readonly robot?: number;
    readonly successWhen?: number;
    /** The file's line that `text` starts on, so a script line (src/ducks/script.ts) is named where it is written. */
    readonly text?: number;
  };
}
