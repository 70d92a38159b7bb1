/**
 * The pilot's `recall` verb: through the loop (an LLM call, not a step; hits or "nothing in memory
 * matches" in the next observation; a `memory` event), absent under --no-memory, used by the fake
 * pilot when its task says to, and over the OpenAI wire format against the local test server.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openRunMemory } from '../../src/run/open-run-memory.js';
import type { TranscriptLine } from '../../src/transcript/events.js';
import { readTranscript } from '../../src/transcript/reader.js';
import { duck } from '../helpers/ducks.js';
import { openaiToolCalls, startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { quackd } from '../helpers/quackd.js';
import { harness } from '../helpers/run-harness.js';
import { scripted } from '../helpers/scripted-provider.js';
import { tempDir } from '../helpers/tmp.js';

const lastObservation = (provider: ReturnType<typeof scripted>, call: number): string => {
  const m = provider.requests[call]?.messages.at(-1);
  return m?.role === 'user' ? m.content : '';
};

/** The newest run's transcript (two runs in one second get ids that do not sort by time). */
function transcriptOf(home: string): TranscriptLine[] {
  const dir = join(home, 'transcripts');
  const runs = readdirSync(dir).map((f) => readTranscript(join(dir, f)).lines);
  return runs.sort((a, b) => (a[0]?.t ?? '').localeCompare(b[0]?.t ?? '')).at(-1) ?? [];
}

describe('recall in the pilot loop', () => {
  it('counts as an LLM call but not a step; hits with kind, age and count, or nothing, in the next observation and the transcript', async () => {
    let clock = Date.parse('2026-11-30T10:00:00Z');
    const opened = await openRunMemory({ body: 'microduck:sim2d', dir: join(tempDir(), 'memory'), duck: 'test', now: () => new Date(clock) });
    const memory = opened.memory!;
    const ctx = { runId: 'earlier', dryRun: false };
    await memory.handle('remember', { text: 'the ball hides behind the sofa' }, ctx);
    for (let i = 0; i < 3; i += 1) await memory.writeEpisode({ runId: `r${i}`, duck: 'find-and-kick', outcome: 'failure', reason: 'ball stuck under the sofa', steps: 9, results: [] });
    for (let i = 0; i < 20; i += 1) await memory.writeEpisode({ runId: `q${i}`, duck: 'hello-world', outcome: 'success', reason: `quacked ${i}`, steps: 1, results: [] });
    clock += 3 * 86_400_000;
    const h = harness(duck('verbs: [quack]'), { memory });
    const provider = scripted([
      [{ name: 'recall', args: { query: 'where is the ball, behind the sofa?' } }],
      [{ name: 'recall', args: { query: 'where are the car keys' } }],
      [{ name: 'quack', args: {} }],
      [{ name: 'declare_success', args: { reason: 'done' } }],
    ]);
    const result = await h.fly(provider);
    assert.equal(result.outcome.status, 'success');
    assert.equal(h.budgets.stepsUsed, 1);
    assert.equal(h.budgets.llmCallsUsed, 4);
    assert.ok(provider.requests[0]!.tools.some((t) => t.name === 'recall'));
    assert.match(provider.requests[0]!.system, /call recall \{query\}.*before searching a room you may have searched before/s);
    const hits = lastObservation(provider, 1);
    assert.match(hits, /^last verb recall: ok — 2 matches for "where is the ball, behind the sofa\?", best first/m);
    assert.match(hits, /\[note by you, 3 days ago\] "the ball hides behind the sofa"/);
    // The same run three times is one hit, ×3.
    assert.match(hits, /\[earlier run ×3, 3 days ago\] "find-and-kick: failure — ball stuck under the sofa \(9 steps\)"/);
    assert.match(lastObservation(provider, 2), /^last verb recall: ok — nothing in memory matches "where are the car keys"$/m);
    const recalls = h.events.filter((e) => e.type === 'memory' && e.action === 'recall');
    assert.equal(recalls.length, 2);
    assert.deepEqual(recalls[1]?.type === 'memory' ? recalls[1].detail : {}, { query: 'where are the car keys', hits: [] });
    // What was recalled is not a fact of this run.
    assert.ok(!result.results.some((r) => r.startsWith('recall')), result.results.join('\n'));
    await memory.close();
  });

  it('is refused when memory is off, and an empty query is refused before memory is asked', async () => {
    const off = harness(duck('verbs: [quack, recall]'));
    const ex = await off.executor.execute({ id: '1', name: 'recall', args: { query: 'ball' } });
    assert.deepEqual(ex.kind === 'refused' ? ex.reason : ex.kind, 'memory is off for this run');
    const opened = await openRunMemory({ body: 'microduck:sim2d', dir: join(tempDir(), 'memory'), duck: 'test' });
    const on = harness(duck('verbs: [quack]'), { memory: opened.memory! });
    const empty = await on.executor.execute({ id: '2', name: 'recall', args: { query: '   ' } });
    assert.equal(empty.kind, 'refused');
    assert.equal(on.budgets.stepsUsed, 0);
    await opened.memory!.close();
  });
});

describe('recall in quackd run (CLI)', () => {
  it('the fake pilot recalls when its task says to (find-and-kick), beside its first move; not under --no-memory', async () => {
    const env = { QUACKD_HOME: tempDir('quackd-home-') };
    assert.equal((await quackd(['memory', 'add', 'the ball was found behind the sofa', '--topic', 'ball location'], { env })).code, 0);
    const r = await quackd(['run', 'find-and-kick'], { env });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /recall "where was the ball found" +1 match for "where was the ball found"/);
    const lines = transcriptOf(env.QUACKD_HOME);
    const event = lines.find((l) => l.type === 'memory' && l.action === 'recall');
    assert.ok(event?.type === 'memory', 'a memory event for the recall');
    assert.equal((event.detail['hits'] as unknown[]).length, 1);
    const first = lines.find((l) => l.type === 'response');
    assert.deepEqual(first?.type === 'response' ? first.toolCalls.map((c) => c.name) : [], ['recall', 'search_scan']);
    // Recalling spends no step: the steps of the run are its body verbs only.
    const steps = lines.filter((l) => l.type === 'verb_result' && l.step !== undefined).length;
    const end = lines.find((l) => l.type === 'end');
    assert.equal(end?.type === 'end' ? end.steps : -1, steps);

    const off = await quackd(['run', 'find-and-kick', '--no-memory'], { env });
    assert.equal(off.code, 0, off.stderr);
    // Not offered, so the same script does not ask for it.
    const offLines = transcriptOf(env.QUACKD_HOME);
    const offFirst = offLines.find((l) => l.type === 'response');
    assert.deepEqual(offFirst?.type === 'response' ? offFirst.toolCalls.map((c) => c.name) : [], ['search_scan']);
    assert.ok(!offLines.some((l) => l.type === 'memory'));
  });
});

describe('recall over the OpenAI wire format', () => {
  const KEY = 'quackd-local-Key-5e1d0c9b8a7f64';
  let server: LlmServer;
  before(async () => {
    server = await startLlmServer({ apiKey: KEY });
  });
  after(async () => server.close());

  it('is offered as a function, and its answer goes back as the tool message of its call', async () => {
    const env = { QUACKD_HOME: tempDir('quackd-e2e-'), OPENAI_API_KEY: KEY };
    assert.equal((await quackd(['memory', 'add', 'Ana likes two quacks as a hello'], { env })).code, 0);
    server.reply(
      openaiToolCalls([{ id: 'call_recall', name: 'recall', arguments: '{"query": "how does Ana like to be greeted"}' }]),
      openaiToolCalls([{ name: 'quack', arguments: '{}' }]),
      openaiToolCalls([{ name: 'declare_success', arguments: '{"reason": "I quacked."}' }]),
    );
    const r = await quackd(['run', 'hello-world', '--provider', 'openai', '--base-url', `${server.url}/v1`, '--model', 'm', '--yes'], { env, timeoutMs: 30_000 });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const body = (i: number) => server.requests[i]?.body as { tools: { function: { name: string; parameters: { properties: Record<string, unknown> } } }[]; messages: { role: string; tool_call_id?: string; content: string }[] };
    const offered = body(0).tools.find((t) => t.function.name === 'recall');
    assert.ok(offered, 'recall is offered');
    assert.deepEqual(Object.keys(offered.function.parameters.properties), ['query']);
    const answer = body(1).messages.find((m) => m.role === 'tool' && m.tool_call_id === 'call_recall');
    assert.match(answer?.content ?? '', /^ok — 1 match for "how does Ana like to be greeted".*"Ana likes two quacks as a hello"/);
    const end = transcriptOf(env.QUACKD_HOME).find((l) => l.type === 'end');
    assert.equal(end?.type === 'end' ? end.steps : -1, 1);
  });
});
