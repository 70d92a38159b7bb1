/**
 * Memory shared between serve-mcp and runs of the same body, with both processes running: a note
 * saved over MCP is in the next `quackd run`'s system prompt (its transcript shows it), and a note
 * a run's pilot saved with `remember` is what the next robot_recall returns, while the server that
 * answers it keeps its store open the whole time.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findDuck } from '../../src/ducks/find.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { yesGate } from '../../src/safety/gate.js';
import { quackd } from '../helpers/quackd.js';
import { scripted } from '../helpers/scripted-provider.js';
import { tempDir } from '../helpers/tmp.js';
import { isError, serveMcpStdio, text, transcript, type Served } from './client.js';

describe('serve-mcp and quackd run share a body\'s memory, both running', () => {
  const home = tempDir('quackd-mcp-memory-');
  let served: Served;

  before(async () => {
    served = await serveMcpStdio([], { QUACKD_HOME: home });
  });
  after(() => served.close());

  it('a note saved over MCP is in the next run\'s system prompt', async () => {
    const saved = await served.client.callTool({ name: 'robot_remember', arguments: { text: 'the ball rolled under the sofa', topic: 'ball location' } });
    assert.equal(isError(saved), false, text(saved));
    const run = await quackd(['run', 'hello-world'], { env: { QUACKD_HOME: home } });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^memory: 1 note, 0 earlier runs \(microduck:sim2d\)$/m);
    const runId = /transcript (\S+)$/.exec(run.stdout.trim())?.[1] ?? '';
    const system = transcript(home, runId).find((l) => l.type === 'prompt' && l.role === 'system');
    assert.ok(system?.type === 'prompt');
    assert.match(system.content, /^- \[an assistant over MCP, [^\]]*topic "ball location"\] "the ball rolled under the sofa"$/m);
  });

  it('a note a run\'s pilot remembered is returned by the next robot_recall', async () => {
    const runtime = createRuntime({ memoryDir: join(home, 'memory'), transcriptsDir: join(home, 'transcripts') });
    try {
      const report = await runtime.run({
        duck: findDuck('hello-world'),
        robot: runtime.robot('microduck:sim2d'),
        seed: 7,
        provider: scripted([[{ name: 'remember', args: { text: 'the charger is behind the armchair', tags: ['place'] } }], [{ name: 'quack', args: {} }], [{ name: 'declare_success', args: { reason: 'quacked' } }]]),
        gate: yesGate,
        dryRun: false,
        signal: new AbortController().signal,
      });
      assert.equal(report.outcome.status, 'success', report.outcome.reason);
    } finally {
      await runtime.stop();
    }
    const found = await served.client.callTool({ name: 'robot_recall', arguments: { query: 'where is the charger' } });
    assert.equal(isError(found), false, text(found));
    const hits = (found.structuredContent as { hits: { text: string; source: string; id: string }[] }).hits;
    // The note first; the run's episode, which mentions it, may follow.
    assert.deepEqual([hits[0]?.text, hits[0]?.source], ['the charger is behind the armchair', 'model']);
    assert.ok(text(found).includes(hits[0]?.id ?? '?'));
    // The whole block, as the next run would be told it: both notes and both runs' episodes.
    const block = text(await served.client.callTool({ name: 'robot_recall', arguments: {} }));
    assert.match(block, /^memory: 2 notes, 2 earlier runs \(microduck:sim2d\)/);
    assert.match(block, /^- \[you, [^\]]*#place\] "the charger is behind the armchair"$/m, 'as a pilot reads it: "you" wrote it');
  });
});
