import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createOpenAiProvider } from '../../src/pilot/providers/openai.js';
import { ProviderError } from '../../src/pilot/providers/provider.js';
import { closedPort, openaiError, openaiText, openaiToolCalls, startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { TEST_KEY, never, options, request } from './request.js';

describe('openai provider against a Chat Completions server', () => {
  let server: LlmServer;
  let v1: string;
  before(async () => {
    server = await startLlmServer({ apiKey: TEST_KEY });
    v1 = `${server.url}/v1`;
  });
  after(async () => server.close());
  beforeEach(() => void server.requests.splice(0));

  it('sends system, history and tools, and reads native tool calls with usage', async () => {
    server.reply(openaiToolCalls([{ name: 'walk', arguments: '{"metres": 0.75}', id: 'call_abc' }], { prompt: 321, completion: 12 }));
    const r = await createOpenAiProvider(options(v1)).next(request(), never());
    assert.deepEqual(r.toolCalls, [{ id: 'call_abc', name: 'walk', args: { metres: 0.75 } }]);
    assert.deepEqual(r.usage, { inputTokens: 321, outputTokens: 12 });
    assert.equal(r.text, '');
    const sent = server.requests[0];
    assert.equal(sent?.path, '/v1/chat/completions');
    assert.equal(sent?.headers.authorization, `Bearer ${TEST_KEY}`);
    const body = sent?.body as { model: string; messages: { role: string }[]; tools: { type: string; function: { name: string; parameters: { type: string } } }[] };
    assert.equal(body.model, 'test-model');
    assert.deepEqual(body.messages.map((m) => m.role), ['system', 'user']);
    assert.deepEqual(body.tools.map((t) => t.function.name), ['quack', 'walk', 'declare_success']);
    assert.equal(body.tools[1]?.function.parameters.type, 'object');
  });

  it('maps the history: assistant tool calls with ids, then one tool message per call', async () => {
    server.reply(openaiText('ok'));
    const req = request([
      { role: 'user', content: 'Say hello.' },
      { role: 'assistant', text: '', toolCalls: [{ id: 'call_1', name: 'quack', args: {} }, { id: 'call_2', name: 'walk', args: { metres: 1 } }] },
      { role: 'tool', callId: 'call_1', name: 'quack', content: 'quacked' },
      { role: 'user', content: 'Observation: nothing new.' },
    ]);
    await createOpenAiProvider(options(v1)).next(req, never());
    const messages = (server.requests[0]?.body as { messages: Record<string, unknown>[] }).messages;
    assert.deepEqual(messages.slice(2), [
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'quack', arguments: '{}' } },
          { id: 'call_2', type: 'function', function: { name: 'walk', arguments: '{"metres":1}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'quacked' },
      // The loop never reported call_2; the API would 400 without an answer to it.
      { role: 'tool', tool_call_id: 'call_2', content: 'not executed (the run moved on before this call)' },
      { role: 'user', content: 'Observation: nothing new.' },
    ]);
  });

  it('accepts a call written as JSON in the content (Qwen 2.5 Coder through Ollama)', async () => {
    server.reply(openaiText('```json\n{"name": "quack", "arguments": {}}\n```'));
    const r = await createOpenAiProvider(options(v1)).next(request(), never());
    assert.deepEqual(r.toolCalls.map((c) => [c.name, c.args, c.error]), [['quack', {}, undefined]]);
    assert.deepEqual(r.usage, { inputTokens: 110, outputTokens: 25 });
  });

  it('reports malformed JSON arguments as an invalid call, and sends {} back in the history', async () => {
    server.reply(openaiToolCalls([{ name: 'walk', arguments: '{"metres": 1', id: 'call_bad' }]), openaiText('ok'));
    const provider = createOpenAiProvider(options(v1));
    const r = await provider.next(request(), never());
    assert.equal(r.toolCalls[0]?.name, 'walk');
    assert.equal(r.toolCalls[0]?.args, '{"metres": 1');
    assert.match(r.toolCalls[0]?.error ?? '', /^arguments are not valid JSON/);
    await provider.next(request([{ role: 'user', content: 'go' }, { role: 'assistant', text: '', toolCalls: r.toolCalls }, { role: 'tool', callId: 'call_bad', name: 'walk', content: 'invalid call' }]), never());
    const history = (server.requests[1]?.body as { messages: { tool_calls?: { function: { arguments: string } }[] }[] }).messages;
    assert.equal(history[2]?.tool_calls?.[0]?.function.arguments, '{}');
  });

  it('passes an unknown verb through unchanged (the executor refuses it)', async () => {
    server.reply(openaiToolCalls([{ name: 'fly', arguments: '{"metres": 3}' }]));
    const r = await createOpenAiProvider(options(v1)).next(request(), never());
    assert.deepEqual(r.toolCalls.map((c) => [c.name, c.args, c.error]), [['fly', { metres: 3 }, undefined]]);
  });

  it('reads object arguments and fills in missing or repeated ids (observed on compatible servers)', async () => {
    server.reply(openaiToolCalls([{ name: 'quack', arguments: {}, id: '' }, { name: 'walk', arguments: { metres: 1 }, id: '' }]));
    const r = await createOpenAiProvider(options(v1)).next(request(), never());
    assert.deepEqual(r.toolCalls.map((c) => c.args), [{}, { metres: 1 }]);
    assert.equal(new Set(r.toolCalls.map((c) => c.id)).size, 2);
    assert.ok(r.toolCalls.every((c) => c.id !== ''));
  });

  it('retries a 429, honouring Retry-After, then succeeds', async () => {
    server.reply(openaiError(429, 'Rate limit reached for requests', 'requests', 'rate_limit_exceeded', { 'retry-after': '1' }), openaiToolCalls([{ name: 'quack', arguments: '{}' }]));
    const t0 = performance.now();
    const r = await createOpenAiProvider(options(v1)).next(request(), never());
    const waited = performance.now() - t0;
    assert.equal(r.toolCalls[0]?.name, 'quack');
    assert.equal(server.requests.length, 2);
    assert.ok(waited >= 950 && waited < 3000, `waited ${waited} ms`);
  });

  it('retries 5xx and a dropped connection with backoff, then gives up with a ProviderError', async () => {
    server.reply({ kind: 'reset' }, openaiError(503, 'overloaded', 'server_error'), openaiError(500, 'boom', 'server_error'));
    await assert.rejects(createOpenAiProvider(options(v1)).next(request(), never()), (err: unknown) => {
      assert.ok(err instanceof ProviderError);
      assert.match(err.message, /answered 500: boom \(after 3 attempts\)$/);
      return true;
    });
    assert.equal(server.requests.length, 3);
  });

  it('retries an answer cut off mid-body, like a dropped connection', async () => {
    server.reply({ kind: 'truncated' }, openaiToolCalls([{ name: 'quack', arguments: '{}' }]));
    const r = await createOpenAiProvider(options(v1)).next(request(), never());
    assert.equal(r.toolCalls[0]?.name, 'quack');
    assert.equal(server.requests.length, 2);
  });

  it('says in one line when a 200 body is not JSON, without retrying', async () => {
    server.reply({ kind: 'garbage' });
    await assert.rejects(createOpenAiProvider(options(v1)).next(request(), never()), (err: unknown) => {
      assert.ok(err instanceof ProviderError);
      assert.match(err.message, /^openai: http:\/\/127\.0\.0\.1:\d+\/v1 answered with a body that is not JSON \(is it an OpenAI-compatible API\?\)$/);
      return true;
    });
    assert.equal(server.requests.length, 1);
  });

  it('does not retry a 400, and names the server and its words', async () => {
    server.reply(openaiError(400, "'tools' is not supported for this model"));
    await assert.rejects(createOpenAiProvider(options(v1)).next(request(), never()), /^ProviderError: openai: http:\/\/127\.0\.0\.1:\d+\/v1 answered 400: 'tools' is not supported/);
    assert.equal(server.requests.length, 1);
  });

  it('turns a 401 into one line that names where the key comes from and never shows the key', async () => {
    const wrong = 'sk-wrong-Pq7Hc2Lw9Xe4Rt6Yu1Io';
    const { registerSecret } = await import('../../src/secrets.js');
    registerSecret(wrong);
    await assert.rejects(createOpenAiProvider({ ...options(v1), apiKey: wrong }).next(request(), never()), (err: unknown) => {
      assert.ok(err instanceof ProviderError);
      assert.match(err.message, /refused the API key \(401\).*\(check OPENAI_API_KEY or the key file\)$/);
      assert.doesNotMatch(err.message, /Pq7Hc2Lw9Xe4Rt6Yu1Io/);
      assert.doesNotMatch(err.message, /\n/);
      return true;
    });
    assert.equal(server.requests.length, 1);
  });

  it('hints at /v1 when the base URL misses it (404)', async () => {
    await assert.rejects(createOpenAiProvider(options(server.url)).next(request(), never()), /answered 404.*check the base URL/);
  });

  it('gives up on a hang at the deadline, without retrying', async () => {
    server.reply({ kind: 'hang' });
    const t0 = performance.now();
    await assert.rejects(createOpenAiProvider(options(v1, { timeoutMs: 300 })).next(request(), never()), /^ProviderError: openai: no answer within 0\.3 s/);
    assert.ok(performance.now() - t0 < 1500);
    assert.equal(server.requests.length, 1);
  });

  it('cancels an in-flight call promptly when the signal aborts (Ctrl-C)', async () => {
    server.reply({ kind: 'hang' });
    const ctl = new AbortController();
    const call = createOpenAiProvider(options(v1, { timeoutMs: 30_000 })).next(request(), ctl.signal);
    setTimeout(() => ctl.abort(), 100);
    const t0 = performance.now();
    await assert.rejects(call, (err: unknown) => err instanceof Error && err.name === 'AbortError');
    assert.ok(performance.now() - t0 < 500);
  });

  it('cancels promptly while waiting out a Retry-After', async () => {
    server.reply(openaiError(429, 'slow down', 'requests', 'rate_limit_exceeded', { 'retry-after': '20' }));
    const ctl = new AbortController();
    const call = createOpenAiProvider(options(v1)).next(request(), ctl.signal);
    setTimeout(() => ctl.abort(), 150);
    const t0 = performance.now();
    await assert.rejects(call, (err: unknown) => err instanceof Error && err.name === 'AbortError');
    assert.ok(performance.now() - t0 < 500);
  });

  it('does not wait for a Retry-After longer than it is willing to', async () => {
    server.reply(openaiError(429, 'quota', 'requests', 'rate_limit_exceeded', { 'retry-after': '3600' }));
    await assert.rejects(createOpenAiProvider(options(v1)).next(request(), never()), /asks to wait 3600 s, longer than quackd waits/);
  });

  it('fails fast with a clear message when nothing listens (connection refused)', async () => {
    const port = await closedPort();
    const t0 = performance.now();
    await assert.rejects(
      createOpenAiProvider(options(`http://127.0.0.1:${port}/v1`)).next(request(), never()),
      new RegExp(`^ProviderError: openai: cannot reach http://127\\.0\\.0\\.1:${port}/v1 \\(connection refused; is the server running\\?\\)$`),
    );
    assert.ok(performance.now() - t0 < 1000);
  });

  it('rejects a body that is not a chat completion', async () => {
    server.reply({ kind: 'json', body: { hello: 'world' } });
    await assert.rejects(createOpenAiProvider(options(v1)).next(request(), never()), /answered without a chat completion/);
  });
});
