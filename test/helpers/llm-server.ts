/**
 * A real HTTP server on 127.0.0.1 (port 0) that speaks the two LLM wire formats quackd uses:
 * OpenAI Chat Completions (`POST /v1/chat/completions`, as OpenAI, Ollama, llama.cpp and vLLM
 * serve it) and Anthropic Messages (`POST /v1/messages`). Tests queue the replies; every
 * request is recorded. The bodies below follow the providers' documented responses field for
 * field, including the deviations local servers are known for.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Reply =
  | { readonly kind: 'json'; readonly status?: number; readonly headers?: Readonly<Record<string, string>>; readonly body: unknown }
  /** Accept the request and never answer (until the server closes). */
  | { readonly kind: 'hang' }
  /** Drop the connection without a response (ECONNRESET / "other side closed" at the client). */
  | { readonly kind: 'reset' }
  /** A 200 whose body is not JSON (a proxy's error page, a wrong base URL). */
  | { readonly kind: 'garbage' }
  /** A 200 that promises a body and drops the connection half-way through it. */
  | { readonly kind: 'truncated' };

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
}

export interface LlmServerOptions {
  /** When set, a request without this key (Bearer or x-api-key) gets the API's own 401. */
  readonly apiKey?: string;
  /** Answers when the queue is empty. */
  readonly fallback?: (req: RecordedRequest) => Reply;
  /** How long to think before answering a request, ms (a slow model for the benches); none by default. */
  readonly delayMs?: (req: RecordedRequest) => number;
}

export interface LlmServer {
  /** `http://127.0.0.1:PORT`: add `/v1` for the OpenAI provider, nothing for Anthropic. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Queue replies, answered in order. */
  reply(...replies: Reply[]): void;
  close(): Promise<void>;
}

const json = (body: unknown, status = 200, headers: Readonly<Record<string, string>> = {}): Reply => ({ kind: 'json', status, headers, body });

function send(res: ServerResponse, reply: Reply): void {
  if (reply.kind === 'hang') return;
  if (reply.kind === 'reset') {
    res.socket?.destroy();
    return;
  }
  if (reply.kind === 'garbage') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('<html>this is not JSON</html>');
    return;
  }
  if (reply.kind === 'truncated') {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
    res.write('{"id":"chatcmpl-1","choices":[');
    setTimeout(() => res.socket?.destroy(), 20);
    return;
  }
  const text = JSON.stringify(reply.body);
  res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...reply.headers });
  res.end(text);
}

function keyOf(headers: IncomingHttpHeaders): string | undefined {
  const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
  const x = headers['x-api-key'];
  return bearer ?? (typeof x === 'string' ? x : undefined);
}

export async function startLlmServer(options: LlmServerOptions = {}): Promise<LlmServer> {
  const queue: Reply[] = [];
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = raw === '' ? undefined : (JSON.parse(raw) as unknown);
      } catch {
        // Recorded as text; the test will see it.
      }
      const path = req.url ?? '/';
      const recorded: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
      requests.push(recorded);
      const anthropic = path.startsWith('/v1/messages');
      if (!anthropic && !path.startsWith('/v1/chat/completions')) {
        // What Ollama says for a path it does not serve (a base URL without /v1, say).
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('404 page not found');
        return;
      }
      if (options.apiKey !== undefined && keyOf(req.headers) !== options.apiKey) {
        send(res, anthropic ? anthropicError(401, 'authentication_error', 'invalid x-api-key') : openaiError(401, `Incorrect API key provided: ${keyOf(req.headers) ?? ''}.`, 'invalid_request_error', 'invalid_api_key'));
        return;
      }
      const next = queue.shift() ?? options.fallback?.(recorded) ?? json({ error: { message: 'llm-server: no reply queued' } }, 500);
      const delay = options.delayMs?.(recorded) ?? 0;
      if (delay > 0) setTimeout(() => send(res, next), delay);
      else send(res, next);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply: (...replies) => void queue.push(...replies),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port nothing listens on: bound once, then released. */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

// ---- OpenAI Chat Completions -------------------------------------------------------------

export interface WireCall {
  readonly name: string;
  /** A JSON string as OpenAI sends it, or an object as some compatible servers do. */
  readonly arguments: string | Record<string, unknown>;
  readonly id?: string;
}

const openaiUsage = (prompt: number, completion: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
});

let counter = 0;

function openaiCompletion(message: Record<string, unknown>, finish: string, usage: { prompt: number; completion: number } | undefined): Reply {
  counter += 1;
  return json({
    id: `chatcmpl-test${counter}`,
    object: 'chat.completion',
    created: 1764460800,
    model: 'gpt-4.1-mini-2025-04-14',
    choices: [{ index: 0, message: { role: 'assistant', refusal: null, annotations: [], ...message }, logprobs: null, finish_reason: finish }],
    ...(usage !== undefined ? { usage: openaiUsage(usage.prompt, usage.completion) } : {}),
    service_tier: 'default',
    system_fingerprint: 'fp_test',
  });
}

/** Native tool calls, `content: null`, `finish_reason: "tool_calls"`. */
export function openaiToolCalls(calls: readonly WireCall[], usage: { prompt: number; completion: number } | undefined = { prompt: 120, completion: 18 }): Reply {
  const tool_calls = calls.map((c, i) => ({
    id: c.id ?? `call_test${counter + 1}_${i}`,
    type: 'function',
    function: { name: c.name, arguments: c.arguments },
  }));
  return openaiCompletion({ content: null, tool_calls }, 'tool_calls', usage);
}

/** A plain text answer; small local models put their calls here (Ollama's shape: no refusal field, fp_ollama). */
export function openaiText(content: string, usage: { prompt: number; completion: number } = { prompt: 110, completion: 25 }): Reply {
  counter += 1;
  return json({
    id: `chatcmpl-${counter}`,
    object: 'chat.completion',
    created: 1764460800,
    model: 'qwen2.5-coder:7b',
    system_fingerprint: 'fp_ollama',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion },
  });
}

/** `{"error": {message, type, param, code}}`, the OpenAI (and Ollama, vLLM) error body. */
export function openaiError(status: number, message: string, type = 'invalid_request_error', code: string | null = null, headers: Readonly<Record<string, string>> = {}): Reply {
  return json({ error: { message, type, param: null, code } }, status, headers);
}

// ---- Anthropic Messages ------------------------------------------------------------------

export function anthropicMessage(
  content: readonly Record<string, unknown>[],
  usage: { input: number; output: number; cacheRead?: number } = { input: 472, output: 89 },
): Reply {
  counter += 1;
  const stop = content.some((b) => b['type'] === 'tool_use') ? 'tool_use' : 'end_turn';
  return {
    kind: 'json',
    status: 200,
    headers: { 'request-id': `req_test${counter}` },
    body: {
      id: `msg_test${counter}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-haiku-4-5-20251001',
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input,
        output_tokens: usage.output,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: usage.cacheRead ?? 0,
        service_tier: 'standard',
      },
    },
  };
}

export const toolUse = (name: string, input: unknown, id = `toolu_test${counter + 1}${name}`): Record<string, unknown> => ({ type: 'tool_use', id, name, input });
export const textBlock = (text: string): Record<string, unknown> => ({ type: 'text', text });

/** `{"type": "error", "error": {type, message}, "request_id"}`, the Anthropic error body. */
export function anthropicError(status: number, type: string, message: string, headers: Readonly<Record<string, string>> = {}): Reply {
  return json({ type: 'error', error: { type, message }, request_id: 'req_testerror' }, status, headers);
}
