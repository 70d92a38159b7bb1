/**
 * What the pilot loop needs from robot memory, and nothing more. The LMDB store implements it
 * (src/memory); a run with `--no-memory`, or whose store cannot be opened, gets none at all.
 */
import type { VerbResult } from '../bodies/body.js';
import type { Verb } from '../verbs/verb.js';

/** Facts about a finished run that quackd (never the model) writes as an episode. */
export interface EpisodeFacts {
  readonly runId: string;
  readonly duck: string;
  readonly outcome: 'success' | 'failure' | 'budget' | 'interrupted' | 'error';
  readonly reason: string;
  readonly steps: number;
  /** Verb result lines of the run, in order (`search_scan: ball found …`). */
  readonly results: readonly string[];
}

export interface MemoryEvent {
  readonly action: string;
  readonly detail: Record<string, unknown>;
}

export interface RunMemory {
  /** Rendered into the system prompt; '' when there is nothing to say. */
  readonly promptBlock: string;
  /** One line for the person at the terminal, e.g. `memory: 3 notes, 5 earlier runs (microduck:sim2d)`. */
  readonly summaryLine: string;
  /** Verbs memory adds to the allowlist (e.g. `remember`). */
  readonly verbs: readonly Verb[];
  /**
   * Handle one admitted memory verb. Under dry run nothing is saved and the result says so.
   * `flush`: the pilot was told the run is about to end; a note saved now is marked as a flush note.
   */
  handle(verb: string, args: Record<string, unknown>, ctx: { runId: string; dryRun: boolean; flush?: boolean }): Promise<{ result: VerbResult; events: readonly MemoryEvent[] }>;
  /** Called once at the end of every non-dry run. */
  writeEpisode(facts: EpisodeFacts): Promise<MemoryEvent | undefined>;
  close(): Promise<void>;
}
