/**
 * A note the model tried to `remember` that looks like a secret is refused by memory; its text
 * must not reach the transcript either. The model's raw call is logged before memory sees it,
 * so the run withholds such text from `response` and `tool_call` events on the way out.
 */
import { secretReason } from '../memory/secret-check.js';
import type { TranscriptEvent } from '../transcript/events.js';

const MEMORY_VERB = 'remember';

/** Every string a `remember` call carries (text, topic, each tag) is checked, like memory does. */
function withheld(args: unknown): unknown {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return args;
  const out: Record<string, unknown> = { ...(args as Record<string, unknown>) };
  const hide = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const why = secretReason(value);
      return why === undefined ? value : `[withheld: ${why}]`;
    }
    return Array.isArray(value) ? value.map(hide) : value;
  };
  for (const [key, value] of Object.entries(out)) out[key] = hide(value);
  return out;
}

export function withholdSecretNotes(event: TranscriptEvent): TranscriptEvent {
  if (event.type === 'tool_call' && event.name === MEMORY_VERB) return { ...event, args: withheld(event.args) };
  if (event.type === 'response' && event.toolCalls.some((c) => c.name === MEMORY_VERB)) {
    return { ...event, toolCalls: event.toolCalls.map((c) => (c.name === MEMORY_VERB ? { ...c, args: withheld(c.args) } : c)) };
  }
  return event;
}
