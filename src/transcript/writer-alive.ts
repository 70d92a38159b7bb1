/**
 * Whether a run that has no end line is still being written: asked of the process its start line
 * names (signal 0 sends nothing, it only checks). Retention and `transcript follow` both need to
 * tell a run waiting at a gate, silent for minutes, from one whose process was killed.
 */
import { processAlive } from '../process-alive.js';
import type { TranscriptEvent } from './events.js';

/** True or false when the start line names its process; undefined for an older transcript. */
export function writerAlive(start: Extract<TranscriptEvent, { type: 'start' }> | undefined): boolean | undefined {
  const pid = start?.pid;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return undefined;
  return processAlive(pid);
}
