/**
 * Which recordings stay: one goes with its transcript (a recording whose transcript was pruned is
 * pruned too), and each robot's recordings, newest first, are kept up to `max_mb` of disk; older
 * ones go (a 50 Hz walk writes about a megabyte a minute, and an SD card is small). The newest of
 * each robot is always kept: it may be the run being written.
 *
 * A recording is a regular file named `<run id>.mcap`; anything else in the folder (a directory, the
 * user's `mcap recover` copy) is not quackd's, and is neither listed nor deleted.
 */
import { existsSync, readdirSync, rmSync, statSync, type Dirent } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { RuntimeError } from '../errors.js';
import { listTranscriptIds, summarize } from '../transcript/reader.js';
import { isRunId } from '../transcript/writer.js';

export const RECORDING_DEFAULTS = { record: true, max_mb: 2000, camera_fps: 1 } as const;

/** The config file's `recordings:` section. */
export const RecordingsSectionSchema = z
  .object({
    /** Record every run (default true); `quackd run --no-record` skips one. */
    record: z.boolean().optional(),
    /** Megabytes of recordings kept per robot, the newest first. */
    max_mb: z.number().min(0.01).max(10_000_000).optional(),
    /** Camera frames a second recorded while a run has a camera, beside its snapshots (0: snapshots only). */
    camera_fps: z.number().min(0).max(10).optional(),
  })
  .strict();

export type RecordingsSection = z.infer<typeof RecordingsSectionSchema>;

export interface RecordingPolicy {
  readonly record: boolean;
  readonly maxBytes: number;
  readonly cameraFps: number;
}

export function recordingPolicy(section: RecordingsSection | undefined): RecordingPolicy {
  return { record: section?.record ?? RECORDING_DEFAULTS.record, maxBytes: (section?.max_mb ?? RECORDING_DEFAULTS.max_mb) * 1_000_000, cameraFps: section?.camera_fps ?? RECORDING_DEFAULTS.camera_fps };
}

export interface Recording {
  readonly id: string;
  readonly path: string;
  readonly bytes: number;
  /** The robot its transcript names, or undefined when the transcript is gone. */
  readonly robot?: string;
  readonly outcome?: string;
  readonly started?: string;
}

export interface Pruned {
  /** What the policy lets go, oldest first: deleted, unless a dry run. */
  readonly gone: Recording[];
  /** What it let go but could not be deleted (a read-only disk), and why: kept. */
  readonly kept: { readonly recording: Recording; readonly reason: string }[];
}

const WHY: Readonly<Record<string, string>> = { ENOTDIR: 'not a directory', EACCES: 'permission denied', EPERM: 'permission denied', EROFS: 'read-only file system', EBUSY: 'in use' };
const why = (err: unknown): string => WHY[(err as NodeJS.ErrnoException).code ?? ''] ?? (err instanceof Error ? err.message : String(err));

/** The recordings in `dir`, run id → path; a folder that cannot be read is one line, not a stack. */
function recordingFiles(dir: string): Map<string, string> {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw new RuntimeError(`cannot read the recordings in ${dir}: ${why(err)}`);
  }
  const ids = entries.flatMap((e) => (e.isFile() && e.name.endsWith('.mcap') && isRunId(basename(e.name, '.mcap')) ? [basename(e.name, '.mcap')] : []));
  return new Map(ids.map((id) => [id, join(dir, `${id}.mcap`)]));
}

/** Every recording, newest first (by its transcript's order; an orphan by its own time, after). */
export function listRecordings(dir: string, transcriptsDir: string): Recording[] {
  const files = recordingFiles(dir);
  const out: Recording[] = [];
  for (const id of listTranscriptIds(transcriptsDir)) {
    const path = files.get(id);
    if (path === undefined) continue;
    files.delete(id);
    const s = summarize(transcriptsDir, id);
    out.push({ id, path, bytes: sizeOf(path), robot: s.robot ?? s.body ?? '(unknown robot)', ...(s.outcome !== undefined ? { outcome: s.outcome } : {}), ...(s.started !== undefined ? { started: s.started } : {}) });
  }
  const orphans = [...files].map(([id, path]) => ({ id, path, bytes: sizeOf(path) })).sort((a, b) => (a.id < b.id ? 1 : -1));
  return [...out, ...orphans];
}

/**
 * Whether nothing is let go: every recording has its transcript and all of them together fit one
 * robot's budget. Then the transcripts, read to learn each recording's robot (every line of each),
 * are not read: quackd run prunes after every run.
 */
function allFit(files: ReadonlyMap<string, string>, transcriptsDir: string, policy: Pick<RecordingPolicy, 'maxBytes'>): boolean {
  if (files.size === 0) return true;
  const transcripts = new Set(existsSync(transcriptsDir) ? readdirSync(transcriptsDir, { withFileTypes: true }).flatMap((e) => (e.isFile() && e.name.endsWith('.jsonl') ? [basename(e.name, '.jsonl')] : [])) : []);
  let total = 0;
  for (const [id, path] of files) {
    if (!transcripts.has(id)) return false;
    total += sizeOf(path);
  }
  return total <= policy.maxBytes;
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** The recordings `policy` lets go, oldest first; with `apply`, deleted, but for those the disk refuses to delete. */
export function pruneRecordings(dir: string, transcriptsDir: string, policy: Pick<RecordingPolicy, 'maxBytes'>, options: { apply: boolean }): Pruned {
  if (allFit(recordingFiles(dir), transcriptsDir, policy)) return { gone: [], kept: [] };
  const used = new Map<string, number>();
  const gone: Recording[] = [];
  for (const r of listRecordings(dir, transcriptsDir)) {
    if (r.robot === undefined) {
      gone.push(r);
      continue;
    }
    const total = (used.get(r.robot) ?? 0) + r.bytes;
    const first = !used.has(r.robot);
    used.set(r.robot, total);
    if (!first && total > policy.maxBytes) gone.push(r);
  }
  gone.reverse();
  if (!options.apply) return { gone, kept: [] };
  const kept: Pruned['kept'][number][] = [];
  for (const r of gone) {
    try {
      rmSync(r.path, { force: true });
    } catch (err) {
      kept.push({ recording: r, reason: why(err) });
    }
  }
  return { gone: gone.filter((r) => !kept.some((k) => k.recording === r)), kept };
}

/** The recordings that could not be deleted, in one line: the first and its reason, and how many more. */
export function keptLine(kept: Pruned['kept']): string {
  const [first, ...more] = kept;
  if (first === undefined) return '';
  return `could not delete ${first.recording.path} (${first.reason})${more.length > 0 ? ` and ${more.length} more` : ''}`;
}
