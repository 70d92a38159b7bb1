/**
 * The system prompt: who the pilot is, the duck's text, the verbs it may call (each with its
 * JSON Schema), the budgets and, when memory is on, what it remembers. The prompt informs; the
 * executor enforces. Nothing here is a safety mechanism.
 */
import { plural } from '../text/plural.js';
import type { Duck } from '../ducks/duck.js';
import type { ToolSpec } from './providers/provider.js';

export function buildSystemPrompt(duck: Duck, body: string, tools: readonly ToolSpec[], memoryBlock: string): string {
  const verbs = tools.map((t) => `- ${t.name}: ${t.description}\n  arguments: ${JSON.stringify(t.inputSchema)}`);
  const { steps, llm_calls, seconds } = duck.budgets;
  return [
    `You are the pilot of a robot (${body}), driven by quackd. You act only by calling the verbs below as tools,`,
    'one or a few at a time; after each call you receive its result and what the sensors report.',
    'Verbs outside this list, or with arguments that do not fit their schema, are refused.',
    '',
    '# Your task',
    duck.text,
    '',
    '# Verbs you may call',
    ...verbs,
    '',
    '# Budgets',
    `At most ${plural(steps, 'body step')}, ${plural(llm_calls, 'reply', 'replies')} from you, and ${plural(seconds, 'second')}. The run ends when one is spent.`,
    'End the run yourself with declare_success or declare_failure. A declared success is checked against what the robot measured.',
    ...(memoryBlock !== '' ? ['', memoryBlock] : []),
  ].join('\n');
}

/** The user message after each response: the last verbs' results, the sensors, the budgets. */
export function formatObservation(lines: readonly string[], sensors: string, budgets: string): string {
  return [...lines, sensors, budgets].join('\n');
}
