/**
 * Tool calls written as text. Small local models (Qwen 2.5 Coder, Llama 3.x through some chat
 * templates) often put the call in the message content instead of the API's tool-call field:
 * `{"name": "walk", "arguments": {"metres": 1}}`, bare, inside ```json fences, or inside
 * `<tool_call>` tags. A well-formed call there counts like a native one. Anything that looks
 * like an attempted call but cannot be read becomes a ToolCall with `error` set, so the pilot is
 * told what was wrong instead of the attempt vanishing. Plain prose yields no calls.
 */
import { randomBytes } from 'node:crypto';
import type { ToolCall } from './provider.js';
import { isRecord } from '../../is-record.js';

/** The name given to a call whose name could not be read; it matches every API's name pattern. */
export const INVALID_CALL_NAME = 'invalid_call';

/** A fresh call id for calls the API did not number (text calls, servers that omit ids). */
export function newCallId(): string {
  return `call_${randomBytes(6).toString('hex')}`;
}

/** Tool-call arguments as the wire carries them: a JSON string (OpenAI), an object (Anthropic, some servers), or nothing. */
export function parseArguments(raw: unknown): { args: unknown; error?: string } {
  if (raw === undefined || raw === null) return { args: {} };
  if (typeof raw !== 'string') return { args: raw };
  if (raw.trim() === '') return { args: {} };
  try {
    return { args: JSON.parse(raw) as unknown };
  } catch (err) {
    return { args: raw, error: `arguments are not valid JSON (${jsonProblem(err)})` };
  }
}

const jsonProblem = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? 'unreadable';

/** The end (exclusive) of the JSON object or array starting at `start`, or undefined if it never closes. */
function balancedEnd(text: string, start: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth += 1;
    else if (c === '}' || c === ']') {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}

interface Segment {
  readonly start: number;
  readonly end: number;
  /** The JSON text to read. */
  readonly json: string;
  /** Where it was found, for error messages. */
  readonly where: string;
}

const TAG = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g;
const FENCE = /```[a-z_]*[ \t]*\n?([\s\S]*?)```/gi;
/** An object that opens with a "name" key: the shape of a call, even when embedded in prose. */
const CALL_START = /\{\s*"(?:name|function)"\s*:/g;

function tagged(text: string, pattern: RegExp, where: string): Segment[] {
  const found: Segment[] = [];
  for (const m of text.matchAll(pattern)) {
    const body = (m[1] ?? '').trim();
    if (where === 'a code block' && !/^[[{]/.test(body)) continue;
    found.push({ start: m.index, end: m.index + m[0].length, json: body, where });
  }
  return found;
}

/** JSON values one after another (`{…}\n{…}`), as the whole content or from each call-shaped opening. */
function bare(text: string): Segment[] {
  const starts = /^\s*[[{]/.test(text) ? [text.search(/[[{]/)] : [...text.matchAll(CALL_START)].map((m) => m.index);
  const found: Segment[] = [];
  let from = 0;
  for (let start of starts) {
    if (start < from) continue;
    for (;;) {
      const end = balancedEnd(text, start) ?? text.length;
      found.push({ start, end, json: text.slice(start, end), where: 'the message text' });
      from = end;
      const next = /^[\s,]*[[{]/.exec(text.slice(end));
      if (next === null) break;
      start = end + next[0].length - 1;
    }
  }
  return found;
}


function guessName(json: string): string {
  return /"name"\s*:\s*"([A-Za-z0-9_.-]{1,64})"/.exec(json)?.[1] ?? INVALID_CALL_NAME;
}

/** One value read from the text: a call, a list of calls, or something that is not a call. */
function toCalls(value: unknown, where: string): Omit<ToolCall, 'id'>[] {
  if (Array.isArray(value)) return value.flatMap((v) => toCalls(v, where));
  const call = isRecord(value) && isRecord(value['function']) ? value['function'] : value;
  if (!isRecord(call) || typeof call['name'] !== 'string' || call['name'] === '') {
    const error = `a JSON value in ${where} is not a tool call (expected {"name": …, "arguments": {…}})`;
    return [{ name: INVALID_CALL_NAME, args: value, error }];
  }
  // Llama 3.x templates say "parameters"; everything else says "arguments".
  const { args, error } = parseArguments(call['arguments'] ?? call['parameters']);
  return [{ name: call['name'], args, ...(error !== undefined ? { error } : {}) }];
}

export interface ContentCalls {
  /** The content with the calls taken out: the model's prose. */
  readonly text: string;
  readonly toolCalls: ToolCall[];
}

/** Reads the tool calls a model wrote into its message text. */
export function callsFromContent(content: string, newId: () => string = newCallId): ContentCalls {
  // Reasoning models think aloud first; examples inside the thinking are not calls.
  const visible = content.replace(/<think>[\s\S]*?<\/think>/g, (m) => ' '.repeat(m.length));
  let segments = tagged(visible, TAG, 'a <tool_call> tag');
  if (segments.length === 0) segments = tagged(visible, FENCE, 'a code block');
  if (segments.length === 0) segments = bare(visible);
  if (segments.length === 0) return { text: content.trim(), toolCalls: [] };

  const toolCalls: ToolCall[] = [];
  for (const s of segments) {
    let value: unknown;
    try {
      value = JSON.parse(s.json) as unknown;
    } catch (err) {
      toolCalls.push({ id: newId(), name: guessName(s.json), args: s.json, error: `malformed JSON in ${s.where} (${jsonProblem(err)})` });
      continue;
    }
    for (const call of toCalls(value, s.where)) toolCalls.push({ id: newId(), ...call });
  }
  let text = '';
  let at = 0;
  for (const s of segments) {
    text += content.slice(at, s.start);
    at = s.end;
  }
  text += content.slice(at);
  return { text: text.replace(/\n{3,}/g, '\n\n').trim(), toolCalls };
}
