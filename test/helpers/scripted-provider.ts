/**
 * A provider that answers from a list of tool-call batches, for loop and executor tests that need
 * a pilot misbehaving in exact ways (unknown verbs, bad arguments, never declaring, hanging).
 */
import type { PilotRequest, PilotResponse, Provider, ToolCall } from '../../src/pilot/providers/provider.js';

export type Batch = readonly Omit<ToolCall, 'id'>[];

export interface ScriptedProvider extends Provider {
  readonly requests: PilotRequest[];
}

/** After the script runs out, the last batch repeats. `hang` never answers (until aborted). */
export function scripted(batches: readonly (Batch | 'hang')[]): ScriptedProvider {
  const requests: PilotRequest[] = [];
  let i = 0;
  return {
    name: 'scripted',
    model: 'test',
    requests,
    next(request, signal): Promise<PilotResponse> {
      // Snapshot: the loop keeps appending to the same history.
      requests.push({ ...request, messages: [...request.messages] });
      const batch = batches[Math.min(i, batches.length - 1)] ?? [];
      i += 1;
      if (batch === 'hang') {
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
      }
      return Promise.resolve({ text: '', toolCalls: batch.map((c, n) => ({ ...c, id: `call-${i}-${n}` })), usage: { inputTokens: 10, outputTokens: 2 } });
    },
  };
}
