/**
 * The `anthropic` provider: the Messages API with tool use, through the official
 * `@anthropic-ai/sdk` with a configurable base URL (Anthropic's cloud, or a server that speaks
 * the same API). Tool calls arrive as `tool_use` blocks; results go back as `tool_result`
 * blocks at the start of the next user turn. A call written as text is read as with the
 * OpenAI provider, for compatible local servers.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { ContentBlockParam, MessageCreateParamsNonStreaming, MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import { argsObject, pairToolResults, wireName } from './history.js';
import { INVALID_CALL_NAME, parseArguments } from './json-in-content.js';
import { ProviderError, type PilotRequest, type PilotResponse, type Provider, type ToolCall } from './provider.js';
import { DEFAULT_MAX_TOKENS, assemble, clientOptions, send, usageOf, type RemoteOptions } from './remote.js';

type Turn = { role: 'user' | 'assistant'; content: ContentBlockParam[] };

/**
 * The history as Messages API turns. Same-role neighbours are merged (a tool result and the
 * next observation are one user turn), and empty text blocks, which the API refuses, are left out.
 */
export function toAnthropicMessages(request: PilotRequest): MessageParam[] {
  const turns: Turn[] = [];
  const push = (role: Turn['role'], blocks: ContentBlockParam[]): void => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  const text = (t: string): ContentBlockParam[] => (t.trim() === '' ? [] : [{ type: 'text', text: t }]);
  for (const m of pairToolResults(request.messages)) {
    if (m.role === 'user') push('user', text(m.content));
    else if (m.role === 'tool') {
      const words = m.content === '' ? '(no output)' : m.content;
      // A tool result may hold pictures beside its text: the frame goes back with the verb's words.
      const content = m.image === undefined ? words : [{ type: 'text' as const, text: words }, { type: 'image' as const, source: { type: 'base64' as const, media_type: m.image.mediaType, data: m.image.base64 } }];
      push('user', [{ type: 'tool_result', tool_use_id: m.callId, content }]);
    }
    else {
      const calls = m.toolCalls.map((c): ContentBlockParam => ({ type: 'tool_use', id: c.id, name: wireName(c.name), input: argsObject(c) }));
      push('assistant', [...text(m.text), ...calls]);
    }
  }
  return turns;
}

export function toAnthropicTools(request: PilotRequest): Tool[] {
  return request.tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: { type: 'object', ...t.inputSchema } as Tool.InputSchema,
  }));
}

interface WireBlock {
  type?: unknown;
  text?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
}

/** A `tool_use` block as a ToolCall. Anthropic sends `input` as an object; some compatible servers send a string. */
export function fromToolUse(block: WireBlock): ToolCall {
  const id = typeof block.id === 'string' ? block.id : '';
  const { args, error } = parseArguments(block.input);
  if (typeof block.name !== 'string' || block.name === '') return { id, name: INVALID_CALL_NAME, args, error: 'the tool_use block has no name' };
  return { id, name: block.name, args, ...(error !== undefined ? { error } : {}) };
}

class AnthropicProvider implements Provider {
  readonly name = 'anthropic';
  readonly model: string;
  private readonly client: Anthropic;
  private readonly seen = new Set<string>();

  /** Every current Claude model reads pictures; `pilot.images: false` for a compatible server that does not. */
  readonly seesImages: boolean;
  readonly pictureWidth: number | undefined;

  constructor(private readonly options: RemoteOptions) {
    this.model = options.model;
    this.seesImages = options.images !== false;
    this.pictureWidth = options.imageWidth;
    // The explicit apiKey also keeps the SDK from its own credential chain (profiles on disk,
    // ANTHROPIC_AUTH_TOKEN); quackd's keys come only from the environment or a 0600 file.
    this.client = new Anthropic({ ...clientOptions(options, 'anthropic'), openTelemetry: false });
  }

  async next(request: PilotRequest, signal: AbortSignal): Promise<PilotResponse> {
    const body: MessageCreateParamsNonStreaming = {
      model: this.model,
      max_tokens: this.options.maxTokens ?? DEFAULT_MAX_TOKENS,
      system: request.system,
      messages: toAnthropicMessages(request),
      ...(request.tools.length > 0 ? { tools: toAnthropicTools(request) } : {}),
    };
    return this.read(await send('anthropic', this.options, Anthropic, signal, (s) => this.client.messages.create(body, { signal: s })));
  }

  /** Reads the message as untrusted JSON: compatible servers differ from the SDK's types. */
  private read(message: unknown): PilotResponse {
    const m = message as { content?: unknown; usage?: Record<string, unknown> } | null;
    if (m === null || typeof m !== 'object' || !Array.isArray(m.content)) {
      throw new ProviderError(`anthropic: ${this.options.baseUrl} answered without a message (is the base URL right? it is the host, without /v1)`);
    }
    const blocks = m.content as WireBlock[];
    const text = blocks
      .filter((b) => b.type === 'text' && typeof b.text === 'string')
      .map((b) => b.text as string)
      .join('\n');
    const calls = blocks.filter((b) => b.type === 'tool_use').map(fromToolUse);
    const u = m.usage ?? {};
    // Cached prompt tokens are still prompt tokens: count them, or a cached run looks free.
    const cached = [u['cache_creation_input_tokens'], u['cache_read_input_tokens']].reduce<number>((sum, v) => sum + (typeof v === 'number' ? v : 0), 0);
    const input = typeof u['input_tokens'] === 'number' ? u['input_tokens'] + cached : undefined;
    return assemble(text, calls, usageOf(input, u['output_tokens']), this.seen);
  }
}

export function createAnthropicProvider(options: RemoteOptions): Provider {
  return new AnthropicProvider(options);
}
