/**
 * Transcript retention, so a robot that runs all day does not fill its SD card: of each robot's
 * runs (by the robot's name in the run's start line) the newest `keep_runs` are kept, every run
 * that started in the last `keep_days` days, and every run that may still be going. Memory episodes are not touched: they have their own cap (src/memory/entry.ts).
 */
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { transcriptEnds, type TranscriptEnds } from './ends.js';
import { listTranscriptIds } from './reader.js';
import { writerAlive } from './writer-alive.js';

export const RETENTION_DEFAULTS = { keep_runs: 200, keep_days: 30 } as const;

/** The config file's `transcripts:` section. */
export const TranscriptsSectionSchema = z
  .object({
    /** Newest runs kept per robot, whatever their age (at least 1: the run being written). */
    keep_runs: z.int().min(1).max(1_000_000).optional(),
    /** Runs of the last this many days are kept, however many there are. */
    keep_days: z.number().min(0).max(36_500).optional(),
  })
  .strict();

export type TranscriptsSection = z.infer<typeof TranscriptsSectionSchema>;

export interface RetentionPolicy {
  readonly keepRuns: number;
  readonly keepDays: number;
}

export function retentionPolicy(section: TranscriptsSection | undefined): RetentionPolicy {
  return { keepRuns: section?.keep_runs ?? RETENTION_DEFAULTS.keep_runs, keepDays: section?.keep_days ?? RETENTION_DEFAULTS.keep_days };
}

export interface PrunedRun {
  readonly id: string;
  readonly robot: string;
  /** When it started (its start line), else when the file was last written. */
  readonly started: string;
  readonly bytes: number;
}

/**
 * A run without an end line may still be going, and need not be its robot's newest by the time
 * retention runs: a gated run sits at its gate writing nothing while the same robot's name is
 * used by other runs. It is kept while its writer's process lives (the start line's pid), and
 * whatever the pid says while its file changed in the last two days: a run's seconds budget and a
 * gate's wait are each at most a day, and a pid cannot be asked across a container's namespace
 * or of a transcript older than the pid field. A file quiet for longer is a run that died.
 */
const UNFINISHED_KEPT_MS = 2 * 86_400_000;

function mayBeRunning(ends: TranscriptEnds, mtimeMs: number, now: number): boolean {
  if (ends.end !== undefined) return false;
  return now - mtimeMs < UNFINISHED_KEPT_MS || writerAlive(ends.start) === true;
}

function endsOf(path: string): TranscriptEnds | undefined {
  try {
    return transcriptEnds(path);
  } catch {
    return undefined; // removed by someone else meanwhile
  }
}

/** The runs `policy` lets go, oldest first; with `apply`, deleted. */
export function pruneTranscripts(dir: string, policy: RetentionPolicy, options: { now?: Date; apply: boolean }): PrunedRun[] {
  const now = (options.now ?? new Date()).getTime();
  const since = now - policy.keepDays * 86_400_000;
  const seen = new Map<string, number>();
  const gone: PrunedRun[] = [];
  // Newest first, so the count per robot is of its newest runs.
  const ids = listTranscriptIds(dir);
  // No robot can have more runs than there are: none is read (quackd run prunes after every run).
  if (ids.length <= policy.keepRuns) return [];
  for (const id of ids) {
    const path = join(dir, `${id}.jsonl`);
    let st;
    try {
      st = statSync(path);
    } catch {
      continue; // removed by someone else meanwhile
    }
    const ends = endsOf(path);
    if (ends === undefined) continue;
    // By the robot's fleet name; a run on a bare body (or of an older quackd) by its body.
    const robot = ends.start?.robot ?? ends.start?.body ?? '(unknown robot)';
    const rank = (seen.get(robot) ?? 0) + 1;
    seen.set(robot, rank);
    const t = ends.start?.t;
    const started = t !== undefined && !Number.isNaN(Date.parse(t)) ? t : new Date(st.mtimeMs).toISOString();
    if (rank <= policy.keepRuns || Date.parse(started) >= since || mayBeRunning(ends, st.mtimeMs, now)) continue;
    gone.push({ id, robot, started, bytes: st.size });
  }
  gone.reverse();
  if (options.apply) {
    for (const run of gone) {
      rmSync(join(dir, `${run.id}.jsonl`), { force: true });
      // Its snapshots' folder, when it took any (src/run/run-snapshots.ts).
      rmSync(join(dir, run.id), { recursive: true, force: true });
    }
  }
  return gone;
}
