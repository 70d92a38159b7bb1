/**
 * The `openai` provider: the Chat Completions API with tools, through the official `openai`
 * SDK pointed at any base URL. Ollama (`/v1`), llama.cpp's server, vLLM, LM Studio and OpenAI
 * itself all speak it, each with small deviations, so the response is read defensively:
 * arguments may be a JSON string or an object, ids may be missing, and the call may be in the
 * content instead (see json-in-content.ts).
 */
import OpenAI from 'openai';
import type { ChatCompletionContentPart, ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { pairToolResults, wireName } from './history.js';
import { INVALID_CALL_NAME, parseArguments } from './json-in-content.js';
import { ProviderError, type PilotRequest, type PilotResponse, type Provider, type ToolCall } from './provider.js';
import { assemble, clientOptions, send, usageOf, type RemoteOptions } from './remote.js';

/** The history as Chat Completions messages, system prompt first. */
export function toOpenAiMessages(request: PilotRequest): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [{ role: 'system', content: request.system }];
  // A tool message carries text only, and nothing may stand between an assistant's calls and
  // their results: the pictures follow the last result, in one user message, each named.
  let pictures: ChatCompletionContentPart[] = [];
  const showPictures = (): void => {
    if (pictures.length > 0) out.push({ role: 'user', content: pictures });
    pictures = [];
  };
  for (const m of pairToolResults(request.messages)) {
    if (m.role !== 'tool') showPictures();
    if (m.role === 'user') out.push({ role: 'user', content: m.content });
    else if (m.role === 'tool') {
      out.push({ role: 'tool', tool_call_id: m.callId, content: m.content });
      if (m.image !== undefined) pictures.push({ type: 'text', text: `the picture ${m.name} returned (call ${m.callId}):` }, { type: 'image_url', image_url: { url: `data:${m.image.mediaType};base64,${m.image.base64}` } });
    } else if (m.toolCalls.length === 0) out.push({ role: 'assistant', content: m.text });
    else {
      out.push({
        role: 'assistant',
        // '' rather than null: older Ollama and llama.cpp builds reject a null content (400).
        content: m.text,
        tool_calls: m.toolCalls.map((c) => ({
          id: c.id,
          type: 'function' as const,
          // Unreadable arguments go back as {}: Ollama and vLLM parse history arguments and
          // would refuse the whole request; the tool result already says what was wrong.
          function: { name: wireName(c.name), arguments: c.error === undefined ? JSON.stringify(c.args ?? {}) : '{}' },
        })),
      });
    }
  }
  showPictures();
  return out;
}

export function toOpenAiTools(request: PilotRequest): ChatCompletionTool[] {
  return request.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: { ...t.inputSchema } } }));
}

interface WireToolCall {
  id?: unknown;
  type?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

/** One `message.tool_calls` entry as a ToolCall; `id` may be '' (filled in later). */
export function fromWireToolCall(call: WireToolCall): ToolCall {
  const name = typeof call.function?.name === 'string' && call.function.name !== '' ? call.function.name : undefined;
  const { args, error } = parseArguments(call.function?.arguments);
  const id = typeof call.id === 'string' ? call.id : '';
  if (name === undefined) return { id, name: INVALID_CALL_NAME, args, error: 'the tool call has no function name' };
  return { id, name, args, ...(error !== undefined ? { error } : {}) };
}

class OpenAiProvider implements Provider {
  readonly name = 'openai';
  readonly model: string;
  private readonly client: OpenAI;
  private readonly seen = new Set<string>();

  /** Off unless the config says so: most local OpenAI-compatible models read text only. */
  readonly seesImages: boolean;
  readonly pictureWidth: number | undefined;

  constructor(private readonly options: RemoteOptions) {
    this.model = options.model;
    this.seesImages = options.images === true;
    this.pictureWidth = options.imageWidth;
    // Explicit nulls keep OPENAI_ORG_ID and friends from leaking in from the environment.
    this.client = new OpenAI({ ...clientOptions(options, 'openai'), organization: null, project: null, webhookSecret: null });
  }

  async next(request: PilotRequest, signal: AbortSignal): Promise<PilotResponse> {
    const body: ChatCompletionCreateParamsNonStreaming = {
      model: this.model,
      messages: toOpenAiMessages(request),
      // An empty tools array is a 400 on OpenAI; omit it instead.
      ...(request.tools.length > 0 ? { tools: toOpenAiTools(request) } : {}),
    };
    return this.read(await send('openai', this.options, OpenAI, signal, (s) => this.client.chat.completions.create(body, { signal: s })));
  }

  /** Reads the completion as untrusted JSON: compatible servers differ from the SDK's types. */
  private read(completion: unknown): PilotResponse {
    const c = completion as { choices?: { message?: { content?: unknown; tool_calls?: unknown } }[]; usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } } | null;
    const message = Array.isArray(c?.choices) ? c.choices[0]?.message : undefined;
    if (message === undefined || message === null) {
      throw new ProviderError(`openai: ${this.options.baseUrl} answered without a chat completion (is the base URL right? it usually ends in /v1)`);
    }
    const text = typeof message.content === 'string' ? message.content : '';
    const wire = Array.isArray(message.tool_calls) ? (message.tool_calls as WireToolCall[]) : [];
    return assemble(text, wire.map(fromWireToolCall), usageOf(c?.usage?.prompt_tokens, c?.usage?.completion_tokens), this.seen);
  }
}

export function createOpenAiProvider(options: RemoteOptions): Provider {
  return new OpenAiProvider(options);
}
