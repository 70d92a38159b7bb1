/**
 * Recall by meaning where users meet it: a run's pilot (`remember`, then `recall` with a
 * paraphrase), whose transcript names the embedding server; and MCP's robot_recall over the
 * built `serve-mcp` with `memory.embeddings` in its config file.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findDuck } from '../../src/ducks/find.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { yesGate } from '../../src/safety/gate.js';
import type { TranscriptLine } from '../../src/transcript/events.js';
import { isError, serveMcpStdio, text } from '../mcp/client.js';
import { scripted } from '../helpers/scripted-provider.js';
import { tempDir } from '../helpers/tmp.js';
import { startEmbeddingServer, type EmbeddingServer } from './embedding-server.js';

describe('recall by meaning in a run and over MCP', () => {
  let server: EmbeddingServer;
  before(async () => {
    server = await startEmbeddingServer();
  });
  after(async () => {
    await server.close();
  });

  it("a run's recall finds a paraphrase, and its transcript names the embedding server", async () => {
    const home = tempDir('quackd-embed-run-');
    const memoryEmbeddings = { baseUrl: server.url, model: 'concepts-v1', timeoutMs: 2_000, floor: 0.35, floorFrom: 'test', weight: 0.5 };
    const runtime = createRuntime({ memoryDir: join(home, 'memory'), transcriptsDir: join(home, 'transcripts'), memoryEmbeddings });
    let runId = '';
    try {
      const report = await runtime.run({
        duck: findDuck('hello-world'),
        robot: runtime.robot('microduck:sim2d'),
        seed: 7,
        provider: scripted([
          [{ name: 'remember', args: { text: 'the charger is under the desk in the study' } }],
          [{ name: 'recall', args: { query: 'where do I plug in to top up' } }, { name: 'quack', args: {} }],
          [{ name: 'declare_success', args: { reason: 'recalled' } }],
        ]),
        gate: yesGate,
        dryRun: false,
        signal: new AbortController().signal,
      });
      assert.equal(report.outcome.status, 'success', report.outcome.reason);
      runId = report.runId;
    } finally {
      await runtime.stop();
    }
    const lines = readFileSync(join(home, 'transcripts', `${runId}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as TranscriptLine);
    const memory = lines.filter((l): l is Extract<TranscriptLine, { type: 'memory' }> => l.type === 'memory');
    const remembered = memory.find((l) => l.action === 'remember');
    assert.equal(remembered?.detail['embeddings'], server.url);
    const recalled = memory.find((l) => l.action === 'recall');
    assert.deepEqual(recalled?.detail['embeddings'], { server: server.url, model: 'concepts-v1', used: true });
    assert.equal((recalled?.detail['hits'] as unknown[]).length, 1);
  });

  it('robot_recall over MCP ranks by meaning with memory.embeddings in the config', async () => {
    const home = tempDir('quackd-embed-mcp-');
    writeFileSync(join(home, 'config.yaml'), `memory:\n  embeddings:\n    base_url: ${server.url}\n    model: concepts-v1\n`);
    const served = await serveMcpStdio([], { QUACKD_HOME: home });
    try {
      const saved = await served.client.callTool({ name: 'robot_remember', arguments: { text: 'the cat sleeps on the sofa in the afternoon' } });
      assert.equal(isError(saved), false, text(saved));
      const found = await served.client.callTool({ name: 'robot_recall', arguments: { query: 'where does my kitty nap on the couch' } });
      assert.equal(isError(found), false, text(found));
      const hits = (found.structuredContent as { hits: { text: string }[] }).hits;
      assert.equal(hits[0]?.text, 'the cat sleeps on the sofa in the afternoon');
      const none = await served.client.callTool({ name: 'robot_recall', arguments: { query: 'what is the weather tomorrow' } });
      assert.match(text(none), /nothing in the memory of microduck:sim2d answers/);
    } finally {
      await served.close();
    }
  });
});
