/**
 * The real pilots end to end: `quackd run` as a child process against the local LLM server,
 * checking what the executor did with each kind of reply, the exit code, the transcript, and
 * that the API key shows up nowhere.
 */
import assert from 'node:assert/strict';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { TranscriptLine } from '../../src/transcript/events.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { quackd } from '../helpers/quackd.js';
import {
  anthropicError,
  anthropicMessage,
  closedPort,
  openaiError,
  openaiText,
  openaiToolCalls,
  startLlmServer,
  textBlock,
  toolUse,
  type LlmServer,
} from '../helpers/llm-server.js';
import { tempDir } from '../helpers/tmp.js';

/** Shaped like no known key, so only the registered-secret redaction can hide it. */
const KEY = 'quackd-local-Key-7f3a9c2e1b84d6';
const WRONG = 'quackd-wrong-Key-0a1b2c3d4e5f69';

interface Run extends CliResult {
  readonly home: string;
  readonly transcript: TranscriptLine[];
  readonly raw: string;
}

async function run(server: LlmServer | string, extra: readonly string[] = [], env: NodeJS.ProcessEnv = {}, provider: 'openai' | 'anthropic' = 'openai'): Promise<Run> {
  const home = tempDir('quackd-e2e-');
  // Anthropic's base URL is the host; OpenAI-compatible ones end in /v1.
  const base = typeof server === 'string' ? server : provider === 'openai' ? `${server.url}/v1` : server.url;
  const r = await quackd(['run', 'hello-world', '--provider', provider, '--base-url', base, '--model', 'm', '--yes', ...extra], {
    env: { QUACKD_HOME: home, OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: KEY, ...env },
    timeoutMs: 30_000,
  });
  const dir = join(home, 'transcripts');
  const files = readdirSync(dir);
  assert.equal(files.length, 1, `one transcript (stderr: ${r.stderr})`);
  const raw = readFileSync(join(dir, files[0]!), 'utf8');
  return { ...r, home, raw, transcript: raw.trim().split('\n').map((l) => JSON.parse(l) as TranscriptLine) };
}

const events = <T extends TranscriptLine['type']>(r: Run, type: T) => r.transcript.filter((e): e is Extract<TranscriptLine, { type: T }> => e.type === type);

function assertNoKey(r: Run): void {
  for (const [where, text] of [['stdout', r.stdout], ['stderr', r.stderr], ['transcript', r.raw]] as const) {
    assert.ok(!text.includes(KEY) && !text.includes(WRONG), `an API key leaked into ${where}`);
  }
}

const quack = () => openaiToolCalls([{ name: 'quack', arguments: '{}' }], { prompt: 200, completion: 10 });
const declare = () => openaiToolCalls([{ name: 'declare_success', arguments: '{"reason": "I quacked."}' }], { prompt: 260, completion: 14 });

describe('quackd run --provider openai, end to end', () => {
  let server: LlmServer;
  before(async () => {
    server = await startLlmServer({ apiKey: KEY });
  });
  after(async () => server.close());
  beforeEach(() => void server.requests.splice(0));

  it('flies hello-world on native tool calls: exit 0, usage per call and in total', async () => {
    server.reply(quack(), declare());
    const r = await run(server);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /pilot openai m/);
    assert.match(r.stdout, /^ {2}1 {2}quack +quack!$/m);
    assert.match(r.stdout, /success — I quacked\..* 2 calls, .*460\+24 tokens/);
    assert.deepEqual(events(r, 'response').map((e) => e.usage), [{ inputTokens: 200, outputTokens: 10 }, { inputTokens: 260, outputTokens: 14 }]);
    assert.deepEqual(events(r, 'end')[0]?.usage, { inputTokens: 460, outputTokens: 24 });
    assert.equal(events(r, 'start')[0]?.provider, 'openai');
    // The second request carried the first call and its result back with matching ids.
    const second = server.requests[1]?.body as { messages: { role: string; tool_calls?: { id: string }[]; tool_call_id?: string }[] };
    const callId = second.messages.find((m) => m.role === 'assistant')?.tool_calls?.[0]?.id;
    assert.equal(second.messages.find((m) => m.role === 'tool')?.tool_call_id, callId);
    assertNoKey(r);
  });

  it('accepts calls written as JSON in the content (Qwen 2.5 Coder style)', async () => {
    server.reply(openaiText('{"name": "quack", "arguments": {}}'), openaiText('<tool_call>\n{"name": "declare_success", "arguments": {"reason": "quacked"}}\n</tool_call>'));
    const r = await run(server);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^ {2}1 {2}quack +quack!$/m);
  });

  it('refuses malformed arguments and unknown verbs, charges the calls, and nothing reaches the body', async () => {
    server.reply(
      openaiToolCalls([{ name: 'quack', arguments: '{"loud": tru' }]),
      openaiToolCalls([{ name: 'fly', arguments: '{"metres": 3}' }]),
      openaiText('```json\n{"name": "quack", "arguments": {\n```'),
      openaiText('{"name": "quack", "arguments": "not json"}'),
      openaiText('I am not sure what to do.'),
    );
    const r = await run(server);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /budget — .*5 .*calls/);
    assert.equal(events(r, 'verb_result').length, 0, 'nothing reached the body');
    const refused = events(r, 'refused').map((e) => `${e.name}: ${e.reason}`);
    assert.equal(refused.length, 4);
    assert.match(refused[0]!, /^quack: invalid call: arguments are not valid JSON/);
    assert.match(refused[1]!, /^fly: unknown verb/);
    assert.match(refused[2]!, /^quack: invalid call: malformed JSON in a code block/);
    assert.match(refused[3]!, /^quack: invalid call: arguments are not valid JSON/);
    assert.equal(events(r, 'budget')[0]?.budget, 'llm_calls');
    assert.equal(events(r, 'response').length, 5);
  });

  it('retries a 429 after its Retry-After and carries on', async () => {
    server.reply(openaiError(429, 'Rate limit reached', 'requests', 'rate_limit_exceeded', { 'retry-after': '1' }), quack(), declare());
    const r = await run(server);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(server.requests.length, 3);
    assert.match(r.stderr, /rate limiting \(429\).*retry 1\/2 in 1\.0 s/);
  });

  it('ends with exit 3 and an error line when a call hangs past --timeout', async () => {
    server.reply({ kind: 'hang' });
    const r = await run(server, ['--timeout', '0.5']);
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.match(events(r, 'error')[0]?.message ?? '', /^openai: no answer within 0\.5 s/);
    assert.equal(events(r, 'end')[0]?.outcome, 'error');
  });

  // SIGHUP: the SSH session that started the run dropped.
  for (const [signal, code, said] of [['SIGINT', 130, 'Ctrl-C'], ['SIGTERM', 143, 'SIGTERM'], ['SIGHUP', 129, 'SIGHUP']] as const) {
    it(`${signal} cancels a call in flight: exit ${code} at once, the transcript says why`, async () => {
      server.reply({ kind: 'hang' });
      const home = tempDir('quackd-e2e-');
      const t0 = performance.now();
      let sentAt = 0;
      const r = await runCli(['run', 'hello-world', '--provider', 'openai', '--base-url', `${server.url}/v1`, '--model', 'm', '--timeout', '60'], {
        env: { QUACKD_HOME: home, OPENAI_API_KEY: KEY },
        onSpawn: (child) => {
          const poll = setInterval(() => {
            if (server.requests.length === 0) return;
            clearInterval(poll);
            sentAt = performance.now();
            child.kill(signal);
          }, 20);
        },
      });
      assert.equal(r.code, code, r.stdout + r.stderr);
      assert.ok(performance.now() - sentAt < 2000, `took ${Math.round(performance.now() - sentAt)} ms after ${signal}`);
      assert.ok(performance.now() - t0 < 10_000);
      const raw = readFileSync(join(home, 'transcripts', readdirSync(join(home, 'transcripts'))[0]!), 'utf8');
      assert.match(raw, /"type":"body_stop","ok":true/);
      assert.match(raw, new RegExp(`"type":"end","outcome":"interrupted","reason":"stopped by ${said}"`));
    });
  }

  it('ends with exit 3 on a 401, in one line, with the key nowhere', async () => {
    const r = await run(server, [], { OPENAI_API_KEY: WRONG });
    assert.equal(r.code, 3, r.stdout + r.stderr);
    const error = events(r, 'error')[0]?.message ?? '';
    assert.match(error, /refused the API key \(401\): Incorrect API key provided: \[redacted\]\. \(check OPENAI_API_KEY or the key file\)$/);
    assert.equal(server.requests.length, 1, 'a 401 is not retried');
    assertNoKey(r);
  });

  it('ends with exit 3 when nothing listens at the base URL', async () => {
    const r = await run(`http://127.0.0.1:${await closedPort()}/v1`);
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.match(events(r, 'error')[0]?.message ?? '', /cannot reach .* \(connection refused; is the server running\?\)$/);
  });

  it('takes the provider settings and a 0600 key file from config.yaml', async () => {
    server.reply(quack(), declare());
    const home = tempDir('quackd-e2e-conf-');
    const keyPath = join(home, 'openai.key');
    writeFileSync(keyPath, `${KEY}\n`);
    chmodSync(keyPath, 0o600);
    writeFileSync(join(home, 'config.yaml'), `pilot:\n  provider: openai\n  model: qwen2.5-coder:7b\n  base_url: ${server.url}/v1\n  key_file: openai.key\n  retries: 0\n`);
    const r = await quackd(['run', 'hello-world', '--yes'], { env: { QUACKD_HOME: home, OPENAI_API_KEY: '' } });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /pilot openai qwen2\.5-coder:7b/);
    assert.equal(server.requests[0]?.headers.authorization, `Bearer ${KEY}`);
    chmodSync(keyPath, 0o644);
    const open = await quackd(['run', 'hello-world', '--yes'], { env: { QUACKD_HOME: home, OPENAI_API_KEY: '' } });
    assert.equal(open.code, 2);
    assert.equal(open.stderr.trim(), `quackd: key file ${keyPath} is open to other users (mode 0644); it must be 0600 (chmod 600 ${keyPath})`);
  });
});

describe('quackd run --provider anthropic, end to end', () => {
  let server: LlmServer;
  before(async () => {
    server = await startLlmServer({ apiKey: KEY });
  });
  after(async () => server.close());
  beforeEach(() => void server.requests.splice(0));

  it('flies hello-world on tool_use blocks', async () => {
    server.reply(anthropicMessage([toolUse('quack', {})], { input: 300, output: 20 }), anthropicMessage([toolUse('declare_success', { reason: 'I quacked.' })], { input: 350, output: 25 }));
    const home = tempDir('quackd-e2e-');
    const r = await quackd(['run', 'hello-world', '--provider', 'anthropic', '--base-url', server.url, '--model', 'claude-haiku-4-5', '--yes'], {
      env: { QUACKD_HOME: home, ANTHROPIC_API_KEY: KEY },
    });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /success — I quacked\..*650\+45 tokens/);
    const second = server.requests[1]?.body as { messages: { role: string; content: { type: string; tool_use_id?: string; id?: string }[] }[] };
    const use = second.messages[1]?.content.find((b) => b.type === 'tool_use');
    assert.equal(second.messages[2]?.content[0]?.tool_use_id, use?.id);
    assert.ok(!r.stdout.includes(KEY) && !r.stderr.includes(KEY));
  });

  it('accepts a call written as JSON in a text block', async () => {
    server.reply(anthropicMessage([textBlock('```json\n{"name": "quack", "arguments": {}}\n```')]), anthropicMessage([toolUse('declare_success', { reason: 'I quacked.' })]));
    const r = await run(server, [], {}, 'anthropic');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^ {2}1 {2}quack +quack!$/m);
  });

  it('refuses an unknown verb and malformed input, charging the call budget; nothing reaches the body', async () => {
    server.reply(anthropicMessage([toolUse('fly', { metres: 3 })]), anthropicMessage([toolUse('quack', 'not an object')]));
    const r = await run(server, ['--llm-calls', '2'], {}, 'anthropic');
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(events(r, 'refused').length, 2);
    assert.equal(events(r, 'verb_result').length, 0);
    assert.equal(events(r, 'budget')[0]?.budget, 'llm_calls');
  });

  it('retries a 429 and then flies; a wrong key is exit 3 in one line with the key nowhere', async () => {
    server.reply(anthropicError(429, 'rate_limit_error', 'slow down', { 'retry-after': '0' }), anthropicMessage([toolUse('quack', {})]), anthropicMessage([toolUse('declare_success', { reason: 'ok' })]));
    const ok = await run(server, [], {}, 'anthropic');
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.equal(server.requests.length, 3);
    const denied = await run(server, [], { ANTHROPIC_API_KEY: WRONG }, 'anthropic');
    assert.equal(denied.code, 3, denied.stdout + denied.stderr);
    assert.match(events(denied, 'error')[0]?.message ?? '', /refused the API key \(401\)/);
    assertNoKey(denied);
  });
});
