/**
 * `quackd transcript follow`: a run as it happens, in the run's own terminal look (header, a line
 * a step, the outcome). Through the running service when there is one (its events as they come),
 * else from a transcript file, read as it grows until its `end` line.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openService, replyError } from '../service/socket/client.js';
import type { Reply } from '../service/socket/protocol.js';
import type { TranscriptEvent } from '../transcript/events.js';
import { resolveTranscriptId, skippedLine, transcriptRecord } from '../transcript/reader.js';
import { FileTail } from '../transcript/tail.js';
import { unfinishedReason } from '../transcript/unfinished.js';
import { writerAlive } from '../transcript/writer-alive.js';
import { RuntimeError } from './errors.js';
import { pilotLabel } from '../pilot/providers/provider.js';
import { fitLine } from './fit.js';
import { printable, type Output } from './output.js';
import { robotLabel } from '../runtime/fleet.js';
import { printHeader, printUnfinished, printOutcome, stepPrinter } from './run-printer.js';

const POLL_MS = 200;
/** A transcript that names no process (an older quackd's) quiet this long: its run is taken as gone. */
const QUIET_MS = 10 * 60_000;

type StartLine = Extract<TranscriptEvent, { type: 'start' }>;

/** Prints a run's events as `quackd run` does: the header from its start, the outcome from its end. */
export function followPrinter(io: Output, json: boolean): (event: TranscriptEvent, runId: string) => void {
  // The gates were asked elsewhere: the run's own terminal, a dashboard, `quackd confirm`.
  const steps = stepPrinter(io, { asks: false });
  let dryRun = false;
  return (e, runId) => {
    if (json) return io.line(JSON.stringify(e));
    if (e.type === 'start') {
      dryRun = e.dryRun;
      const b = e.budgets;
      return printHeader(io, { name: e.duck, budgets: { steps: b['steps'] ?? 0, llm_calls: b['llm_calls'] ?? 0, seconds: b['seconds'] ?? 0 } }, robotLabel(e.robot ?? e.body, e.body), pilotLabel({ name: e.provider, model: e.model }), e.dryRun);
    }
    if (e.type === 'end') {
      return printOutcome(io, { runId, outcome: { status: e.outcome, reason: e.reason }, steps: e.steps, llmCalls: e.llmCalls, seconds: e.seconds, usage: e.usage ?? { inputTokens: 0, outputTokens: 0 }, ...(e.pictures !== undefined ? { pictures: e.pictures } : {}), dryRun });
    }
    steps(e);
  };
}

/**
 * A gate of the followed run waits for a person: the question as the run's terminal asks it, and
 * how to answer from here.
 */
function printWaitingGate(io: Output, robot: string, question: string): void {
  io.line(fitLine(`${printable(question)} — ${io.yellow(`waiting for a yes or no: quackd confirm ${robot} yes|no`)}`, io.width(), 5));
}

/**
 * Follows the service's run on `target` (a robot or a run id; any run when undefined); with
 * nothing under way on a robot, its next run. False when no service runs.
 */
export async function followThroughService(io: Output, env: NodeJS.ProcessEnv, target: string | undefined, json: boolean, signal: AbortSignal): Promise<boolean> {
  const print = followPrinter(io, json);
  let run: { runId: string; robot: string } | undefined;
  let failure: Extract<Reply, { type: 'error' }> | undefined;
  const connection = await openService(env, { op: 'follow', wait: true, ...(target !== undefined ? { target } : {}) }, (reply) => {
    if (reply.type === 'waiting' && !json) io.line(io.dim(`waiting for the next run${reply.robot !== undefined ? ` on ${printable(reply.robot)}` : ''} · Ctrl-C to stop`));
    else if (reply.type === 'started') run = reply.run;
    else if (reply.type === 'event') print(reply.event, run?.runId ?? '');
    else if (reply.type === 'gate' && !json) printWaitingGate(io, run?.robot ?? '', reply.question);
    else if (reply.type === 'error') failure = reply;
  });
  if (connection === undefined) return false;
  const onAbort = (): void => connection.close();
  signal.addEventListener('abort', onAbort, { once: true });
  await connection.closed;
  signal.removeEventListener('abort', onAbort);
  if (failure !== undefined) throw replyError(failure);
  return true;
}

/** Waits `ms`, or less when `signal` aborts; leaves no listener on `signal` behind. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const wake = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    signal.addEventListener('abort', wake, { once: true });
  });
}

/**
 * Whether the run's writer is gone, asked when a poll brought nothing new: the start line names
 * its process, which is asked (no service answered, so nobody else can say); a transcript of an
 * older quackd names none, and a file quiet for QUIET_MS then is a run that ended without a word.
 */
function writerGone(start: StartLine | undefined, quietMs: number): string | undefined {
  const alive = writerAlive(start);
  if (alive === false) return unfinishedReason(start, false);
  if (alive === undefined && quietMs >= QUIET_MS) return `the run never ended: nothing written for ${QUIET_MS / 60_000} minutes`;
  return undefined;
}

/** Follows a transcript file (`last`, an id or a prefix) until its end line, its writer is gone, or `signal`. */
export async function followFile(io: Output, dir: string, ref: string, json: boolean, signal: AbortSignal): Promise<void> {
  const id = resolveTranscriptId(dir, ref);
  const path = join(dir, `${id}.jsonl`);
  const gone = (): RuntimeError => new RuntimeError(`transcript ${id} was deleted while it was followed (by 'quackd transcript prune' or retention?)`);
  const print = followPrinter(io, json);
  let tail: FileTail;
  try {
    tail = FileTail.open(path);
  } catch {
    throw gone();
  }
  let skipped = 0;
  let start: StartLine | undefined;
  let changed = Date.now();
  let verdict: string | undefined;
  try {
    for (;;) {
      const { lines, bytes } = tail.read();
      for (const raw of lines) {
        if (raw.trim() === '') continue;
        const line = transcriptRecord(raw);
        if (line === undefined) {
          skipped += 1;
          continue;
        }
        if (line.type === 'start') start = line;
        print(line, id);
        if (line.type === 'end') return;
      }
      if (bytes > 0) {
        changed = Date.now();
        verdict = undefined;
        continue; // more may be there already: caught up before the next pause
      }
      if (signal.aborted) return;
      // The open file reads on after it is unlinked: its name says whether it is still there.
      if (!existsSync(path)) throw gone();
      if (verdict !== undefined) return printUnfinished(io, id, verdict, json);
      verdict = writerGone(start, Date.now() - changed);
      // Gone: one more read first, for what the writer wrote just before it went.
      if (verdict === undefined) await pause(POLL_MS, signal);
    }
  } finally {
    tail.close();
    if (skipped > 0) io.err.write(`${skippedLine(skipped, id)}\n`);
  }
}
