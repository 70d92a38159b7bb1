/**
 * Pre-flight for the message history before it is turned into an API's messages. Both APIs
 * reject a conversation (400) in which an assistant tool call has no result, or a result
 * answers no call; the loop may stop executing a response's calls part-way (a declare, a
 * budget), so the history is made well-formed here rather than trusting every caller.
 */
import { INVALID_CALL_NAME } from './json-in-content.js';
import type { PilotMessage, ToolCall } from './provider.js';

/** Said to the model for a call the run did not carry out. */
export const NOT_EXECUTED = 'not executed (the run moved on before this call)';

/** Tool names the APIs accept: ^[a-zA-Z0-9_-]{1,64}$. A model may have written anything. */
export function wireName(name: string): string {
  return /^[a-zA-Z0-9_-]{1,64}$/.test(name) ? name : INVALID_CALL_NAME;
}

/** Arguments as an object, for APIs that insist on one (Anthropic's tool_use.input); unreadable ones become {}. */
export function argsObject(call: ToolCall): Record<string, unknown> {
  const a = call.args;
  return call.error === undefined && a !== null && typeof a === 'object' && !Array.isArray(a) ? (a as Record<string, unknown>) : {};
}

/**
 * Every assistant tool call is followed by exactly one result, right after it; results that
 * answer no call become plain user text so nothing the pilot saw is lost.
 */
export function pairToolResults(messages: readonly PilotMessage[]): PilotMessage[] {
  const out: PilotMessage[] = [];
  for (let i = 0; i < messages.length; i += 1) {
    const m = messages[i]!;
    if (m.role === 'tool') {
      // Reached only for a result with no assistant call in front of it.
      out.push({ role: 'user', content: `[${m.name}] ${m.content}` });
      continue;
    }
    out.push(m);
    if (m.role !== 'assistant' || m.toolCalls.length === 0) continue;
    const results = new Map<string, PilotMessage & { role: 'tool' }>();
    const strays: PilotMessage[] = [];
    while (messages[i + 1]?.role === 'tool') {
      i += 1;
      const r = messages[i] as PilotMessage & { role: 'tool' };
      if (m.toolCalls.some((c) => c.id === r.callId) && !results.has(r.callId)) results.set(r.callId, r);
      else strays.push({ role: 'user', content: `[${r.name}] ${r.content}` });
    }
    for (const call of m.toolCalls) {
      out.push(results.get(call.id) ?? { role: 'tool', callId: call.id, name: call.name, content: NOT_EXECUTED });
    }
    out.push(...strays);
  }
  return out;
}

/**
 * Ids unique across a run (`seen` lives as long as the provider): some servers send none, or
 * number every response's calls from call_0, and a repeated id makes results ambiguous.
 */
export function uniqueIds<T extends { id: string }>(calls: readonly T[], seen: Set<string>, newId: () => string): T[] {
  return calls.map((c) => {
    const id = c.id === '' || seen.has(c.id) ? newId() : c.id;
    seen.add(id);
    return id === c.id ? c : { ...c, id };
  });
}
