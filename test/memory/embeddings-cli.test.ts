/**
 * `quackd memory search --embeddings-url` as a person runs it (the built CLI) against a loopback
 * `/v1/embeddings`: a paraphrase words miss is found, vectors are kept, a server that is down
 * leaves words alone with a one-line warning, and config check and doctor show the embeddings.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';
import { startEmbeddingServer, type EmbeddingServer } from './embedding-server.js';

describe('quackd memory search --embeddings-url (CLI)', () => {
  let server: EmbeddingServer;
  before(async () => {
    server = await startEmbeddingServer();
  });
  after(async () => {
    await server.close();
  });

  it('finds by meaning what words miss, keeps the vectors, and falls back to words when the server is down', async () => {
    const home = tempDir('quackd-embed-cli-');
    const env = { QUACKD_HOME: home, QUACKD_MEMORY_DIR: join(home, 'memory') };
    for (const text of ['the charger is under the desk in the study', 'the cat sleeps on the sofa']) assert.equal((await quackd(['memory', 'add', text], { env })).code, 0);
    const q = 'where do I plug in to top up';
    const words = await quackd(['memory', 'search', q], { env });
    assert.match(words.stdout, /nothing in the memory of microduck:sim2d answers/);
    const meaning = await quackd(['memory', 'search', q, '--json', '--embeddings-url', server.url, '--embeddings-model', 'concepts-v1'], { env });
    assert.equal(meaning.code, 0, meaning.stderr);
    const hits = JSON.parse(meaning.stdout) as { text: string; similarity?: number }[];
    assert.equal(hits[0]?.text, 'the charger is under the desk in the study');
    assert.ok((hits[0]?.similarity ?? 0) > 0.35);
    // The vectors were kept: the next search sends only its question.
    server.requests.length = 0;
    await quackd(['memory', 'search', q, '--embeddings-url', server.url, '--embeddings-model', 'concepts-v1'], { env });
    assert.deepEqual(server.requests.map((r) => r.input), [[q]]);
    const doctor = await quackd(['memory', 'doctor'], { env });
    assert.match(doctor.stdout, /embedded by concepts-v1\/64: 2 of 2/);
    // Nothing listens there: a warning, and the words' answer.
    const down = await quackd(['memory', 'search', 'where is the charger', '--embeddings-url', 'http://127.0.0.1:9/v1', '--embeddings-model', 'concepts-v1'], { env });
    assert.equal(down.code, 0);
    assert.match(down.stdout, /the charger is under the desk/);
    assert.match(down.stderr, /embedding server http:\/\/127\.0\.0\.1:9\/v1: .*searched by words alone/);
  });

  it('takes memory.embeddings from the config file, and config check shows it', async () => {
    const home = tempDir('quackd-embed-cfg-');
    writeFileSync(join(home, 'config.yaml'), `memory:\n  embeddings:\n    base_url: ${server.url}\n    model: concepts-v1\n    floor: 0.5\n`);
    const env = { QUACKD_HOME: home, QUACKD_MEMORY_DIR: join(home, 'memory') };
    const check = await quackd(['config', 'check'], { env });
    assert.match(check.stdout, new RegExp(`embeddings +concepts-v1 at ${server.url.replaceAll('/', '\\/')} · similarity floor 0\\.5`));
    assert.equal((await quackd(['memory', 'add', 'the charger is under the desk'], { env })).code, 0);
    const found = await quackd(['memory', 'search', 'where do I plug in'], { env });
    assert.match(found.stdout, /the charger is under the desk/);
    const health = await quackd(['health', '--json'], { env });
    const store = (JSON.parse(health.stdout) as { check: string; detail: string }[]).find((r) => r.check === 'store');
    assert.match(store?.detail ?? '', new RegExp(` · recall by meaning: concepts-v1 at ${server.url.replaceAll('/', '\\/')}$`));
    const bad = join(home, 'bad');
    writeFileSync(join(bad + '.yaml'), 'memory:\n  embeddings:\n    base_url: ftp://x\n');
    const refused = await quackd(['config', 'check'], { env: { ...env, QUACKD_CONFIG: `${bad}.yaml` } });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /memory\.embeddings\.base_url: expected an http/);
  });
});
