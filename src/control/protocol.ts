/**
 * What the control handle (main thread) and the control worker say to each other. Messages carry
 * data only. Two counters live in shared memory instead, because the worker must see them without
 * turning its event loop: how many ticks have started, and the stop counter (a stop is an
 * increase), which the worker checks at the start of every tick.
 */
import type { FallSettings } from './fall.js';
import type { Json, ModuleSpec } from './module-spec.js';
import type { JointSpec } from './plant.js';
import type { VerbResult } from './skill.js';
import type { ControlStats, LoopMode } from './stats.js';

/** Indices into the shared BigInt64Array. */
export const TICKS = 0;
export const STOP = 1;
export const SHARED_SLOTS = 2;

export interface WorkerInit {
  readonly plant: ModuleSpec;
  readonly mode: LoopMode;
  readonly periodMs: number;
  readonly fall: FallSettings;
  readonly skillTimeoutMs: number;
  readonly statsEveryMs: number;
  /** SCHED_FIFO priority for the worker thread in real time; false leaves it at normal priority */
  readonly realtimePriority: number | false;
  /** Skill modules imported (and warmed with their options) before the first tick. */
  readonly warm: readonly ModuleSpec[];
  /** The skill run between verbs from the first tick on (ControlLoopOptions.idle); none holds. */
  readonly idle?: ModuleSpec;
  readonly shared: SharedArrayBuffer;
}

export type ToWorker =
  | { readonly type: 'run'; readonly id: number; readonly skill: ModuleSpec; readonly stopSeq: bigint }
  /** The counter says it already; this only wakes a tick that waits on a skill's promise. */
  | { readonly type: 'stop' }
  | { readonly type: 'sense'; readonly id: number }
  /** The skill to run between verbs from now on; null holds. */
  | { readonly type: 'idle'; readonly skill: ModuleSpec | null }
  /** Skill modules to warm while the loop runs (ControlLoop.warm), each right after a tick; answered `warmed`. */
  | { readonly type: 'warm'; readonly id: number; readonly skills: readonly ModuleSpec[] }
  | { readonly type: 'close' };

export type FromWorker =
  /** `ticks`: the tick ring (src/control/tick-ring.ts) the worker writes every tick into. */
  | { readonly type: 'ready'; readonly joints: readonly JointSpec[]; readonly scheduling: string; readonly ticks: SharedArrayBuffer }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'verb'; readonly id: number; readonly result: VerbResult }
  | { readonly type: 'stats'; readonly stats: ControlStats }
  /** `inVerb`: the verb's result says it fell; otherwise it fell between verbs. */
  | { readonly type: 'fell'; readonly tiltRad: number; readonly tick: number; readonly inVerb: boolean }
  | { readonly type: 'warn'; readonly message: string }
  | { readonly type: 'sensed'; readonly id: number; readonly world: Json }
  | { readonly type: 'warmed'; readonly id: number }
  | { readonly type: 'closed' };
