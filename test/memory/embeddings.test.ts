/**
 * Recall by meaning against a loopback `/v1/embeddings` (embedding-server.ts): vectors saved
 * beside entries after the write, lazy backfill in batches, a model change, an outage that fails
 * nothing, fusion finding a paraphrase BM25 misses, and no secret-looking text sent.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import type { EmbeddingSettings } from '../../src/memory/embedder.js';
import { openMemoryStore, type MemoryStore } from '../../src/memory/store.js';
import { rank } from '../../src/memory/recall.js';
import { startEmbeddingServer, type EmbeddingServer } from './embedding-server.js';

const BODY = 'microduck:sim2d';
const NOTES = ['the charger is under the desk in the study', 'the rug in the hallway is slippery', 'the cat sleeps on the sofa in the afternoon', 'kick right works better than kick left'];

const settings = (url: string, model = 'concepts-v1', over: Partial<EmbeddingSettings> = {}): EmbeddingSettings => ({ baseUrl: url, model, timeoutMs: 2_000, floor: 0.35, floorFrom: 'test', weight: 0.5, ...over });

/** Polls until `check` holds (the backfill runs in the background) or fails after `ms`. */
async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

let dir: string;
let server: EmbeddingServer;
const open: MemoryStore[] = [];
async function store(options: Parameters<typeof openMemoryStore>[1]): Promise<MemoryStore> {
  const s = await openMemoryStore(dir, options);
  open.push(s);
  return s;
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quackd-embed-'));
  server = await startEmbeddingServer();
});
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});
after(() => undefined);

describe('memory embeddings', () => {
  for (const writes of ['worker', 'inline'] as const) {
    it(`stores a vector beside each entry saved, tagged with model and dimensions (writes: ${writes})`, async () => {
      const s = await store({ writes, embeddings: settings(server.url) });
      const memory = s.body(BODY);
      for (const text of NOTES) await memory.remember({ text, source: 'human' });
      await until(() => memory.vectors().size === NOTES.length);
      const ids = new Set(memory.entries().map((e) => e.id));
      for (const [id, v] of memory.vectors()) {
        assert.ok(ids.has(id));
        assert.equal(v.model, 'concepts-v1');
        assert.equal(v.dims, 64);
      }
      assert.ok(server.requests.every((r) => r.model === 'concepts-v1'));
      // Forgotten entries take their vectors with them.
      const first = memory.entries()[0];
      assert.ok(first !== undefined);
      await memory.forget(first.id);
      assert.equal(memory.vectors().has(first.id), false);
    });
  }

  it('finds a paraphrase BM25 misses, and still abstains on an unrelated question', async () => {
    const s = await store({ writes: 'inline', embeddings: settings(server.url) });
    const memory = s.body(BODY);
    for (const text of NOTES) await memory.remember({ text, source: 'human' });
    const question = 'where do I plug in to top up';
    assert.deepEqual(rank(memory.entries(), question), [], 'words alone find nothing');
    const found = await memory.search(question);
    assert.equal(found.meaning?.used, true);
    assert.equal(found.hits[0]?.entry.text, NOTES[0]);
    assert.ok((found.hits[0]?.similarity ?? 0) >= 0.35);
    assert.equal(found.hits.length, 1, 'only the entry close in meaning answers');
    assert.deepEqual((await memory.search('what is the weather tomorrow')).hits, []);
    // What words find, fusion still finds first.
    assert.equal((await memory.search('is the hallway rug slippery?')).hits[0]?.entry.text, NOTES[1]);
  });

  it('without embeddings, search is exactly BM25', async () => {
    const s = await store({ writes: 'inline' });
    const memory = s.body(BODY);
    for (const text of NOTES) await memory.remember({ text, source: 'human' });
    for (const q of ['where is the charging dock', 'where do I plug in to top up', 'kick']) assert.deepEqual((await memory.search(q)).hits, rank(memory.entries(), q));
    assert.equal((await memory.search('kick')).meaning, undefined);
    assert.equal(server.requests.length, 0);
  });

  it('embeds entries saved before embeddings were on, lazily and in batches', async () => {
    const before = await store({ writes: 'inline' });
    const m0 = before.body(BODY);
    for (let i = 0; i < 70; i += 1) await m0.addEpisode({ text: `run: patrol-${i}: success — looked around the hallway ${i}` });
    for (const text of NOTES) await m0.remember({ text, source: 'human' });
    await before.close();
    open.splice(0);
    const s = await store({ writes: 'inline', embeddings: settings(server.url) });
    const memory = s.body(BODY);
    assert.equal(memory.vectors().size, 0);
    assert.equal(await memory.embedPending(), 74);
    assert.equal(memory.vectors().size, 74);
    assert.ok(server.requests.length <= 3, `${server.requests.length} calls for 74 entries`);
    assert.ok(server.requests.every((r) => r.input.length <= 32));
    server.requests.length = 0;
    assert.equal(await memory.embedPending(), 0, 'nothing is embedded twice');
    assert.equal(server.requests.length, 0);
    // A search meanwhile sends only the question.
    await memory.search('where do I plug in');
    assert.deepEqual(server.requests.map((r) => r.input.length), [1]);
  });

  it('a new model re-embeds: vectors of another model are not used', async () => {
    const a = await store({ writes: 'inline', embeddings: settings(server.url, 'concepts-v1') });
    for (const text of NOTES) await a.body(BODY).remember({ text, source: 'human' });
    await a.body(BODY).embedPending();
    await a.close();
    open.splice(0);
    server.requests.length = 0;
    const b = await store({ writes: 'inline', embeddings: settings(server.url, 'concepts-v2', { dims: 32 }) });
    const memory = b.body(BODY);
    const found = await memory.search('where do I plug in to top up');
    assert.equal(found.hits[0]?.entry.text, NOTES[0]);
    // The question and the four entries went to the new model at once.
    assert.deepEqual(server.requests.map((r) => [r.model, r.input.length]), [['concepts-v2', 5]]);
    await until(() => [...memory.vectors().values()].every((v) => v.model === 'concepts-v2' && v.dims === 32) && memory.vectors().size === NOTES.length);
  });

  it('an outage fails nothing: the entry is saved at once, search falls back to words, and it is embedded later', async () => {
    const port = server.port;
    await server.close();
    const s = await store({ embeddings: settings(`http://127.0.0.1:${port}/v1`) });
    const memory = s.body(BODY);
    const t0 = Date.now();
    for (const text of NOTES) await memory.remember({ text, source: 'human' });
    assert.ok(Date.now() - t0 < 1_500, 'remember did not wait for the server');
    const words = await memory.search('where is the charging dock');
    assert.equal(words.meaning?.used, false);
    assert.match(words.meaning?.problem ?? '', /embedding server http:\/\/127\.0\.0\.1/);
    assert.equal(words.hits[0]?.entry.text, NOTES[0]);
    assert.equal(memory.vectors().size, 0);
    // The server comes back: the next search embeds what was missed.
    server = await startEmbeddingServer(port);
    const found = await memory.search('where do I plug in to top up');
    assert.equal(found.meaning?.used, true);
    assert.equal(found.hits[0]?.entry.text, NOTES[0]);
    await until(() => memory.vectors().size === NOTES.length);
  });

  it('a server that hangs is cut off at its deadline and delays no write', async () => {
    server.mode = 'hang';
    const s = await store({ embeddings: settings(server.url, 'concepts-v1', { timeoutMs: 300 }) });
    const memory = s.body(BODY);
    const t0 = Date.now();
    await memory.remember({ text: NOTES[0] ?? '', source: 'human' });
    assert.ok(Date.now() - t0 < 1_000);
    const res = await memory.search('where is the charger');
    assert.equal(res.meaning?.used, false);
    assert.equal(res.hits[0]?.entry.text, NOTES[0]);
  });

  it('sends nothing the secret check refuses', async () => {
    const s = await store({ writes: 'inline', embeddings: settings(server.url) });
    const memory = s.body(BODY);
    await memory.remember({ text: NOTES[0] ?? '', source: 'human' });
    await memory.embedPending();
    const key = 'sk-proj-abcdefghijklmnopqrstuvwx';
    const res = await memory.search(`is ${key} the charger key`);
    assert.equal(res.meaning?.used, false);
    assert.match(res.meaning?.problem ?? '', /looks like a secret/);
    assert.ok(server.requests.every((r) => r.input.every((t) => !t.includes(key))));
  });
});
