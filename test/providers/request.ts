/**
 * A pilot request as the loop sends it (system prompt, history, the duck's verbs as tools),
 * and provider options tuned for tests: short deadlines and backoffs so a retry costs
 * milliseconds, not seconds.
 */
import type { PilotMessage, PilotRequest, ToolSpec } from '../../src/pilot/providers/provider.js';
import type { RemoteOptions } from '../../src/pilot/providers/remote.js';
import { defaultVerbs, verbJsonSchema } from '../../src/verbs/registry.js';

export const TEST_KEY = 'sk-test-Zq8vN3xK2mW7pL4rT9yB';

export function tools(names: readonly string[] = ['quack', 'walk', 'declare_success']): ToolSpec[] {
  return names.map((name) => {
    const verb = defaultVerbs.get(name);
    if (verb === undefined) throw new Error(`no verb ${name}`);
    return { name, description: verb.description, inputSchema: verbJsonSchema(verb) };
  });
}

export function request(messages: readonly PilotMessage[] = [{ role: 'user', content: 'Say hello.' }], toolNames?: readonly string[]): PilotRequest {
  return {
    system: 'You fly a small robot duck. Call one tool at a time.',
    messages,
    tools: tools(toolNames),
    context: {
      observation: { summary: 'nothing in sight', data: {} },
      lastResults: [],
      dryRun: false,
      duck: 'hello-world',
      task: 'Say hello.',
    },
  };
}

export function options(baseUrl: string, overrides: Partial<RemoteOptions['policy']> = {}): RemoteOptions {
  return {
    model: 'test-model',
    baseUrl,
    apiKey: TEST_KEY,
    keyHint: 'OPENAI_API_KEY or the key file',
    policy: { retries: 2, timeoutMs: 2_000, baseDelayMs: 10, maxDelayMs: 40, ...overrides },
  };
}

export const never = (): AbortSignal => new AbortController().signal;
