/**
 * The memory flush: when a budget is about to end the run (one step or one LLM call left, or the
 * last 10 % of the seconds), the pilot is told once, in the observation, to remember what is worth
 * keeping; a note saved then is tagged #flush; a dry run saves nothing. Through the loop with a
 * scripted pilot, with the fake pilot through `quackd run`, and over the OpenAI wire format.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openRunMemory } from '../../src/run/open-run-memory.js';
import { openMemoryStore } from '../../src/memory/store.js';
import { BudgetTracker } from '../../src/safety/budgets.js';
import { duck, writeDuck } from '../helpers/ducks.js';
import { openaiToolCalls, startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { quackd } from '../helpers/quackd.js';
import { harness } from '../helpers/run-harness.js';
import { scripted } from '../helpers/scripted-provider.js';
import { tempDir } from '../helpers/tmp.js';

const NOTICE = /^memory: the run is about to end \((.*)\)\. .*remember it now/m;

const observations = (provider: ReturnType<typeof scripted>) => provider.requests.map((r) => {
  const m = r.messages.at(-1);
  return m?.role === 'user' ? m.content : '';
});

async function memoryIn(dir: string) {
  const opened = await openRunMemory({ body: 'microduck:sim2d', dir, duck: 'test' });
  assert.ok(opened.memory, opened.notice);
  return opened.memory;
}

async function notesIn(dir: string) {
  const store = await openMemoryStore(dir);
  try {
    return store.body('microduck:sim2d').entries().filter((e) => e.kind === 'note');
  } finally {
    await store.close();
  }
}

describe('BudgetTracker.nearlySpent', () => {
  it('names the budget at its last step, its last call, or its last 10 % of seconds', () => {
    let now = 0;
    const b = new BudgetTracker({ steps: 3, llm_calls: 5, seconds: 20 }, () => now);
    assert.equal(b.nearlySpent(), undefined);
    b.chargeStep();
    assert.equal(b.nearlySpent(), undefined);
    b.chargeStep();
    assert.equal(b.nearlySpent(), 'steps');
    const calls = new BudgetTracker({ steps: 9, llm_calls: 3, seconds: 20 }, () => now);
    calls.chargeLlm();
    assert.equal(calls.nearlySpent(), undefined);
    calls.chargeLlm();
    assert.equal(calls.nearlySpent(), 'llm_calls');
    const clock = new BudgetTracker({ steps: 9, llm_calls: 9, seconds: 20 }, () => now);
    now = 17_900;
    assert.equal(clock.nearlySpent(), undefined);
    now = 18_000;
    assert.equal(clock.nearlySpent(), 'seconds');
  });
});

describe('the memory flush in the pilot loop', () => {
  it('tells the pilot once, at its last step, and marks the note it saves then', async () => {
    const dir = join(tempDir(), 'memory');
    const memory = await memoryIn(dir);
    const h = harness(duck('verbs: [quack]\nbudgets: { steps: 3, llm_calls: 10, seconds: 60 }'), { memory });
    const provider = scripted([
      [{ name: 'remember', args: { text: 'an ordinary note', tags: ['place'] } }],
      [{ name: 'quack', args: {} }],
      [{ name: 'quack', args: {} }],
      [{ name: 'remember', args: { text: 'quacking twice used up the steps', tags: ['lesson'] } }],
      [{ name: 'declare_success', args: { reason: 'done' } }],
    ]);
    const result = await h.fly(provider);
    assert.equal(result.outcome.status, 'success');
    const told = observations(provider).map((o) => NOTICE.exec(o)?.[1]);
    // After the second quack one step is left: told then, and only then.
    assert.deepEqual(told, [undefined, undefined, undefined, '1 step left', undefined]);
    const notes = await notesIn(dir);
    assert.deepEqual(notes.find((n) => n.text === 'quacking twice used up the steps')?.tags, ['lesson', 'flush']);
    assert.deepEqual(notes.find((n) => n.text === 'an ordinary note')?.tags, ['place']);
    const flushEvent = h.events.find((e) => e.type === 'memory' && e.action === 'remember' && e.detail['flush'] === true);
    assert.ok(flushEvent?.type === 'memory' && flushEvent.detail['text'] === 'quacking twice used up the steps');
    await memory.close();
  });

  it('tells the pilot before its last LLM call', async () => {
    const memory = await memoryIn(join(tempDir(), 'memory'));
    const h = harness(duck('verbs: [quack]\nbudgets: { steps: 10, llm_calls: 3, seconds: 60 }'), { memory });
    const provider = scripted([[{ name: 'quack', args: {} }], [{ name: 'quack', args: {} }], [{ name: 'declare_success', args: { reason: 'done' } }]]);
    await h.fly(provider);
    assert.deepEqual(observations(provider).map((o) => NOTICE.exec(o)?.[1]), [undefined, undefined, '1 reply left']);
    await memory.close();
  });

  it('says nothing without memory, and a dry run saves nothing', async () => {
    const bare = harness(duck('verbs: [quack]\nbudgets: { steps: 1, llm_calls: 3, seconds: 60 }'));
    const p1 = scripted([[{ name: 'quack', args: {} }], [{ name: 'declare_success', args: { reason: 'done' } }]]);
    await bare.fly(p1);
    assert.ok(!observations(p1).some((o) => NOTICE.test(o)));

    const dir = join(tempDir(), 'memory');
    const memory = await memoryIn(dir);
    const dry = harness(duck('verbs: [quack]\nbudgets: { steps: 1, llm_calls: 3, seconds: 60 }'), { memory, dryRun: true });
    const p2 = scripted([[{ name: 'remember', args: { text: 'a dry fact' } }], [{ name: 'declare_success', args: { reason: 'done' } }]]);
    await dry.fly(p2);
    assert.match(observations(p2)[0] ?? '', NOTICE);
    assert.match(observations(p2)[1] ?? '', /last verb remember: ok — would remember for future runs: a dry fact — not saved: dry run/);
    await memory.close();
    assert.deepEqual(await notesIn(dir), []);
  });
});

describe('the memory flush in quackd run', () => {
  it('the fake pilot remembers what it last saw when told, and the note shows as #flush', async () => {
    const home = tempDir('quackd-home-');
    const env = { QUACKD_HOME: home };
    const path = writeDuck(home, 'short-kick', 'robot: microduck:sim2d\nverbs: [search_scan, turn, walk, kick]\nbudgets: { steps: 2, llm_calls: 10, seconds: 60 }', '# Short\n\n1. Find the ball and kick it.\n');
    const r = await quackd(['run', path], { env });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /remember +remembered for future runs: short-kick ran out of budget; last observed: /);
    const show = await quackd(['memory', 'show'], { env });
    assert.match(show.stdout, /short-kick ran out of budget.*#flush/);
    const dry = await quackd(['run', path, '--dry-run'], { env });
    assert.match(dry.stdout, /not saved: dry run/);
    assert.deepEqual((await notesIn(join(home, 'memory'))).map((n) => n.tags), [['flush']]);
  });

  it('over the OpenAI wire format: the notice is in the user message, the note is marked', async () => {
    const KEY = 'quackd-local-Key-0c2b4d6f8e1a37';
    const server: LlmServer = await startLlmServer({ apiKey: KEY });
    try {
      const home = tempDir('quackd-e2e-');
      const env = { QUACKD_HOME: home, OPENAI_API_KEY: KEY };
      const path = writeDuck(home, 'one-quack', 'robot: microduck:sim2d\nverbs: [quack]\nbudgets: { steps: 2, llm_calls: 5, seconds: 60 }');
      server.reply(
        openaiToolCalls([{ name: 'quack', arguments: '{}' }]),
        openaiToolCalls([{ name: 'remember', arguments: '{"text": "one quack is enough here"}' }]),
        openaiToolCalls([{ name: 'declare_success', arguments: '{"reason": "quacked"}' }]),
      );
      const r = await quackd(['run', path, '--provider', 'openai', '--base-url', `${server.url}/v1`, '--model', 'm', '--yes'], { env, timeoutMs: 30_000 });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      const userText = (i: number) => ((server.requests[i]?.body as { messages: { role: string; content: string }[] }).messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');
      assert.doesNotMatch(userText(0), NOTICE);
      assert.match(userText(1), NOTICE);
      assert.doesNotMatch(userText(2), NOTICE);
      assert.deepEqual((await notesIn(join(home, 'memory'))).map((n) => [n.text, n.tags]), [['one quack is enough here', ['flush']]]);
    } finally {
      await server.close();
    }
  });
});

