/**
 * What a transcript without an end line says about its run: still going while the process its
 * start line names runs, else a run that never ended (killed, or the machine lost power).
 */
import type { TranscriptEvent } from './events.js';
import { writerAlive } from './writer-alive.js';

type Start = Extract<TranscriptEvent, { type: 'start' }>;

/** Why `start`'s run has no end line, in one phrase; `alive` is writerAlive(start), asked by the caller. */
export function unfinishedReason(start: Start | undefined, alive = writerAlive(start)): string {
  if (alive === true) return `still going (its process ${start?.pid ?? '?'} runs)`;
  if (alive === false) return `the run never ended: its process ${start?.pid ?? '?'} is gone`;
  return 'the run never ended, or is still going (this transcript does not name its process)';
}
