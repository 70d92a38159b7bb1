import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createAnthropicProvider } from '../../src/pilot/providers/anthropic.js';
import { ProviderError } from '../../src/pilot/providers/provider.js';
import { anthropicError, anthropicMessage, closedPort, startLlmServer, textBlock, toolUse, type LlmServer } from '../helpers/llm-server.js';
import { TEST_KEY, never, options, request } from './request.js';

const anthropicOptions = (url: string, policy: Parameters<typeof options>[1] = {}) => ({ ...options(url, policy), keyHint: 'ANTHROPIC_API_KEY or the key file' });

describe('anthropic provider against a Messages API server', () => {
  let server: LlmServer;
  before(async () => {
    server = await startLlmServer({ apiKey: TEST_KEY });
  });
  after(async () => server.close());
  beforeEach(() => void server.requests.splice(0));

  it('sends system, turns and tools, and reads tool_use blocks, text and usage', async () => {
    server.reply(anthropicMessage([textBlock('Walking to the ball.'), toolUse('walk', { metres: 0.75 }, 'toolu_01A')], { input: 400, output: 30, cacheRead: 100 }));
    const r = await createAnthropicProvider(anthropicOptions(server.url)).next(request(), never());
    assert.deepEqual(r.toolCalls, [{ id: 'toolu_01A', name: 'walk', args: { metres: 0.75 } }]);
    assert.equal(r.text, 'Walking to the ball.');
    // Cached prompt tokens still count as input.
    assert.deepEqual(r.usage, { inputTokens: 500, outputTokens: 30 });
    const sent = server.requests[0];
    assert.equal(sent?.path, '/v1/messages');
    assert.ok(typeof sent?.headers['anthropic-version'] === 'string');
    const body = sent?.body as { model: string; max_tokens: number; system: string; messages: unknown[]; tools: { name: string; input_schema: { type: string } }[] };
    assert.equal(body.model, 'test-model');
    assert.equal(body.max_tokens, 1024);
    assert.match(body.system, /robot duck/);
    assert.deepEqual(body.messages, [{ role: 'user', content: [{ type: 'text', text: 'Say hello.' }] }]);
    assert.deepEqual(body.tools.map((t) => [t.name, t.input_schema.type]), [['quack', 'object'], ['walk', 'object'], ['declare_success', 'object']]);
  });

  it('maps the history: tool_use in the assistant turn, tool_result first in the next user turn', async () => {
    server.reply(anthropicMessage([textBlock('ok')]));
    const req = request([
      { role: 'user', content: 'Say hello.' },
      { role: 'assistant', text: 'Quacking.', toolCalls: [{ id: 'toolu_1', name: 'quack', args: {} }, { id: 'toolu_2', name: 'walk', args: '{bad', error: 'arguments are not valid JSON' }] },
      { role: 'tool', callId: 'toolu_1', name: 'quack', content: 'quacked' },
      { role: 'tool', callId: 'toolu_2', name: 'walk', content: 'refused: invalid call' },
      { role: 'user', content: 'Observation: nothing new.' },
    ]);
    await createAnthropicProvider(anthropicOptions(server.url)).next(req, never());
    const messages = (server.requests[0]?.body as { messages: unknown[] }).messages;
    assert.deepEqual(messages, [
      { role: 'user', content: [{ type: 'text', text: 'Say hello.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Quacking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'quack', input: {} },
          // tool_use.input must be an object: unreadable arguments go back as {}.
          { type: 'tool_use', id: 'toolu_2', name: 'walk', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'quacked' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'refused: invalid call' },
          { type: 'text', text: 'Observation: nothing new.' },
        ],
      },
    ]);
  });

  it('accepts a call written as text by an Anthropic-compatible local server', async () => {
    server.reply(anthropicMessage([textBlock('<tool_call>{"name": "quack", "arguments": {}}</tool_call>')]));
    const r = await createAnthropicProvider(anthropicOptions(server.url)).next(request(), never());
    assert.deepEqual(r.toolCalls.map((c) => [c.name, c.args]), [['quack', {}]]);
    assert.equal(r.text, '');
  });

  it('passes unknown verbs and odd inputs through for the executor to judge', async () => {
    server.reply(anthropicMessage([toolUse('fly', { metres: 3 }), toolUse('walk', '{"metres": 1')]));
    const r = await createAnthropicProvider(anthropicOptions(server.url)).next(request(), never());
    assert.deepEqual(r.toolCalls.map((c) => [c.name, c.error === undefined]), [['fly', true], ['walk', false]]);
  });

  it('retries 429 (Retry-After) and 529 overloaded, then succeeds', async () => {
    server.reply(
      anthropicError(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit', { 'retry-after': '1' }),
      anthropicError(529, 'overloaded_error', 'Overloaded'),
      anthropicMessage([toolUse('quack', {})]),
    );
    const t0 = performance.now();
    const r = await createAnthropicProvider(anthropicOptions(server.url)).next(request(), never());
    assert.equal(r.toolCalls[0]?.name, 'quack');
    assert.equal(server.requests.length, 3);
    assert.ok(performance.now() - t0 >= 950);
  });

  it('turns a 401 into one line without the key', async () => {
    const wrong = 'sk-ant-wrong-Hy6Tg5Rf4Ed3Ws2Qa1';
    await assert.rejects(createAnthropicProvider({ ...anthropicOptions(server.url), apiKey: wrong }).next(request(), never()), (err: unknown) => {
      assert.ok(err instanceof ProviderError);
      assert.match(err.message, /^anthropic: http:\/\/127\.0\.0\.1:\d+ refused the API key \(401\): invalid x-api-key \(check ANTHROPIC_API_KEY or the key file\)$/);
      assert.doesNotMatch(err.message, /Hy6Tg5Rf4Ed3Ws2Qa1/);
      return true;
    });
    assert.equal(server.requests.length, 1);
  });

  it('gives up on a hang at the deadline, and cancels promptly on abort', async () => {
    server.reply({ kind: 'hang' });
    await assert.rejects(createAnthropicProvider(anthropicOptions(server.url, { timeoutMs: 250 })).next(request(), never()), /^ProviderError: anthropic: no answer within 0\.3 s/);
    server.reply({ kind: 'hang' });
    const ctl = new AbortController();
    const call = createAnthropicProvider(anthropicOptions(server.url, { timeoutMs: 30_000 })).next(request(), ctl.signal);
    setTimeout(() => ctl.abort(), 100);
    const t0 = performance.now();
    await assert.rejects(call, (err: unknown) => err instanceof Error && err.name === 'AbortError');
    assert.ok(performance.now() - t0 < 500);
  });

  it('fails fast when nothing listens', async () => {
    const port = await closedPort();
    await assert.rejects(createAnthropicProvider(anthropicOptions(`http://127.0.0.1:${port}`)).next(request(), never()), /cannot reach .* \(connection refused; is the server running\?\)$/);
  });
});
