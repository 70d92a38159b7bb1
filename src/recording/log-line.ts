/**
 * A transcript line as a foxglove.Log message: the level says how it went (a refusal or a failed
 * verb is a warning, an error an error), the name says what kind of line it is, and the message is
 * the line a person reads in `quackd transcript show`, with the whole record after it as JSON.
 */
import { redact } from '../secrets.js';
import type { TranscriptEvent } from '../transcript/events.js';
import { foxgloveTime, type FoxgloveTime } from './time.js';

/** foxglove.LogLevel */
export const LEVEL = { debug: 1, info: 2, warning: 3, error: 4 } as const;

export interface FoxgloveLog {
  readonly timestamp: FoxgloveTime;
  readonly level: number;
  readonly message: string;
  readonly name: string;
  readonly file: string;
  readonly line: number;
}

function levelOf(event: TranscriptEvent): number {
  switch (event.type) {
    case 'error':
      return LEVEL.error;
    case 'trouble':
    case 'refused':
      return LEVEL.warning;
    case 'verb_result':
      return event.ok ? LEVEL.info : LEVEL.warning;
    case 'gate':
      return event.allowed ? LEVEL.info : LEVEL.warning;
    case 'body_stop':
      return event.ok ? LEVEL.info : LEVEL.error;
    case 'end':
      return event.outcome === 'success' ? LEVEL.info : event.outcome === 'error' ? LEVEL.error : LEVEL.warning;
    case 'prompt':
    case 'request':
    case 'response':
    case 'frame':
      return LEVEL.debug;
    default:
      return LEVEL.info;
  }
}

/** The line's gist, short enough for Foxglove's log panel. */
function gist(event: TranscriptEvent): string {
  switch (event.type) {
    case 'start':
      return `${event.duck} on ${event.robot ?? event.body} · pilot ${event.provider}${event.dryRun ? ' · dry run' : ''}`;
    case 'prompt':
      return `${event.role}${event.name !== undefined ? ` ${event.name}` : ''}: ${event.content}`;
    case 'request':
      return `llm call ${event.call}: ${event.messages} messages, ${event.tools} tools`;
    case 'response':
      return `llm answer ${event.call} (${event.ms} ms): ${event.toolCalls.map((c) => c.name).join(', ') || event.text}`;
    case 'tool_call':
      return `${event.step}  ${event.name} ${JSON.stringify(event.args)}`;
    case 'refused':
      return `${event.name} refused: ${event.reason}`;
    case 'gate':
      return `${event.label} — ${event.allowed ? 'allowed' : 'denied'} (${event.how}${event.by !== undefined ? `, ${event.by}` : ''})`;
    case 'verb_result':
      return `${event.step !== undefined ? `${event.step}  ` : ''}${event.label}  ${event.summary}${event.invented ? ' (dry run: not sent)' : ''}`;
    case 'frame':
      return `frame after step ${event.step}`;
    case 'memory':
      return `memory ${event.action}`;
    case 'budget':
      return `budget ${event.budget}: ${event.used} of ${event.limit}`;
    case 'error':
    case 'trouble':
      return event.message;
    case 'body_link':
      return `${event.firmware} on ${event.board} at ${event.device} (boot ${event.boot})`;
    case 'body_stop':
      return event.ok ? 'body stopped' : `body did not stop: ${event.error ?? ''}`;
    case 'flock':
      return `flock ${event.what} ${event.member}${event.reason !== undefined ? `: ${event.reason}` : ''}`;
    case 'end':
      return `${event.outcome} — ${event.reason} · ${event.steps} steps, ${event.llmCalls} calls, ${event.seconds} s`;
    default:
      return (event as { type: string }).type;
  }
}

/**
 * The name is the line's kind, which Foxglove's log panel filters by. Every message passes through
 * redact(), as every transcript line does: no API key lands in a recording either.
 */
export function logLine(event: TranscriptEvent, epochMs: number): FoxgloveLog {
  return { timestamp: foxgloveTime(epochMs), level: levelOf(event), message: redact(`${gist(event)}\n${JSON.stringify(event)}`), name: event.type, file: '', line: 0 };
}
