/**
 * The prompt's memory block ranked by the run's task, where users meet it: runs on a runtime with
 * `memory.embeddings` against the loopback `/v1/embeddings` (embedding-server.ts). After a run
 * the duck's text is embedded and kept; a later run of it sees the notes closest to its task
 * first, with no call to the server before its pilot is asked. A server that hangs delays the
 * end of the process by no more than the grace, and the next block is newest first.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findDuck } from '../../src/ducks/find.js';
import { TASK_GRACE_MS } from '../../src/memory/meaning.js';
import { openMemoryStore } from '../../src/memory/store.js';
import type { Provider } from '../../src/pilot/providers/provider.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { yesGate } from '../../src/safety/gate.js';
import { scripted } from '../helpers/scripted-provider.js';
import { tempDir } from '../helpers/tmp.js';
import { startEmbeddingServer, type EmbeddingServer } from './embedding-server.js';

const BODY = 'microduck:sim2d';
const TASK = 'Find the ball in the living room and kick it toward the wall.';
const OLD_NOTE = 'the toy rolls under the couch when it is pushed';
const COLOURS = ['red', 'green', 'blue', 'white', 'black', 'grey'];
const THINGS = ['lamp', 'vase', 'box', 'book'];
/** 24 notes newer than OLD_NOTE, none sharing its words or meaning. */
const FILLER = COLOURS.flatMap((c) => THINGS.map((t) => `the ${c} ${t} stands by the window`));

const duck = { ...findDuck('hello-world'), text: TASK };

describe("the prompt's notes ranked by the run's task", () => {
  let server: EmbeddingServer;
  before(async () => {
    server = await startEmbeddingServer();
  });
  after(async () => {
    await server.close();
  });

  const embeddings = () => ({ baseUrl: server.url, model: 'concepts-v1', timeoutMs: 2_000, floor: 0.35, floorFrom: 'test', weight: 0.5 });

  async function seed(home: string): Promise<void> {
    const store = await openMemoryStore(join(home, 'memory'), { writes: 'inline', embeddings: embeddings() });
    try {
      const memory = store.body(BODY);
      for (const text of [OLD_NOTE, ...FILLER]) await memory.remember({ text, source: 'human' });
      assert.equal(await memory.embedPending(), 25);
    } finally {
      await store.close();
    }
  }

  /** One run of `duck` on a fresh runtime; the system prompt it was given and the server's request count when the pilot was first asked. */
  async function run(home: string): Promise<{ system: string; requestsAtStart: number; stopMs: number }> {
    const runtime = createRuntime({ memoryDir: join(home, 'memory'), transcriptsDir: join(home, 'transcripts'), memoryEmbeddings: embeddings() });
    const pilot = scripted([[{ name: 'quack', args: {} }], [{ name: 'declare_success', args: { reason: 'done' } }]]);
    let requestsAtStart = -1;
    const provider: Provider = { ...pilot, next: (req, signal) => ((requestsAtStart = requestsAtStart < 0 ? server.requests.length : requestsAtStart), pilot.next(req, signal)) };
    let stopMs = 0;
    try {
      const report = await runtime.run({ duck, robot: runtime.robot(BODY), seed: 3, provider, gate: yesGate, dryRun: false, signal: new AbortController().signal });
      assert.equal(report.outcome.status, 'success', report.outcome.reason);
    } finally {
      const t0 = performance.now();
      await runtime.stop();
      stopMs = performance.now() - t0;
    }
    return { system: pilot.requests[0]?.system ?? '', requestsAtStart, stopMs };
  }

  const notesOf = (system: string) => system.split('\n').filter((l) => l.startsWith('- [a person'));

  it('a later run of the task sees the notes closest to it first, without asking the server at its start', async () => {
    const home = tempDir('quackd-embed-prompt-');
    await seed(home);
    const before = server.requests.length;
    const first = await run(home);
    // No vector of the task yet: newest first, and the oldest note is past the 20 shown.
    assert.match(first.system, /notes \(newest first, 20 of 25\)/);
    assert.equal(notesOf(first.system).some((l) => l.includes(OLD_NOTE)), false);
    assert.equal(first.requestsAtStart, before, 'no call before the pilot is asked');
    assert.ok(server.requests.slice(before).some((r) => r.input.includes(TASK)), 'the task was embedded after the run');

    const asked = server.requests.length;
    const second = await run(home);
    assert.equal(second.requestsAtStart, asked, 'no call before the pilot is asked');
    assert.match(second.system, /notes \(closest to this task first, then newest, 20 of 25\)/);
    const notes = notesOf(second.system);
    assert.equal(notes.length, 20);
    assert.ok(notes[0]?.includes(OLD_NOTE), notes[0]);
    // The rest is still the newest.
    assert.ok(notes[1]?.includes(FILLER[FILLER.length - 1] ?? '?'), notes[1]);
    // Embedded once per task and model: the second run's end sent it no more.
    assert.equal(server.requests.slice(asked).filter((r) => r.input.includes(TASK)).length, 0);
  });

  it('a server that hangs costs the end no more than the grace, and the next block is newest first', async () => {
    const home = tempDir('quackd-embed-prompt-hang-');
    await seed(home);
    server.mode = 'hang';
    try {
      const first = await run(home);
      assert.ok(first.stopMs < TASK_GRACE_MS + 1_500, `stop took ${Math.round(first.stopMs)} ms`);
    } finally {
      server.mode = 'ok';
    }
    const second = await run(home);
    assert.match(second.system, /notes \(newest first, 20 of 25\)/);
  });
});
