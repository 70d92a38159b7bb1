/**
 * A note the model tried to `remember` that looks like a secret is refused by memory; its text
 * must not reach the transcript either. The model's raw call is logged before memory sees it,
 * so the run withholds such text from `response` and `tool_call` events on the way out.
 */
import { secretReason } from '../memory/secret-check.js';
import type { TranscriptEvent } from '../transcript/events.js';

const MEMORY_VERB = 'remember';

function withheld(args: unknown): unknown {
  if (args === null || typeof args !== 'object') return args;
  const text = (args as Record<string, unknown>)['text'];
  if (typeof text !== 'string') return args;
  const why = secretReason(text);
  return why === undefined ? args : { ...args, text: `[withheld: ${why}]` };
}

export function withholdSecretNotes(event: TranscriptEvent): TranscriptEvent {
  if (event.type === 'tool_call' && event.name === MEMORY_VERB) return { ...event, args: withheld(event.args) };
  if (event.type === 'response' && event.toolCalls.some((c) => c.name === MEMORY_VERB)) {
    return { ...event, toolCalls: event.toolCalls.map((c) => (c.name === MEMORY_VERB ? { ...c, args: withheld(c.args) } : c)) };
  }
  return event;
}
