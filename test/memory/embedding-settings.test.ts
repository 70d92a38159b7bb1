/** Which embedding settings a command uses: flags over the config file, the floor configured over the calibrated one over the default, a key file read. */
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { floorsFile, resolveEmbeddings } from '../../src/memory/embedding-settings.js';
import { DEFAULT_SIMILARITY_FLOOR } from '../../src/memory/fusion.js';
import { tempDir } from '../helpers/tmp.js';

describe('embedding settings', () => {
  const config = (home: string) => join(home, 'config.yaml');

  it('is off without a server, and the flags beat the config file', () => {
    const home = tempDir('quackd-emb-set-');
    assert.equal(resolveEmbeddings(undefined, config(home), {}, home), undefined);
    const section = { embeddings: { base_url: 'http://127.0.0.1:1/v1', model: 'a', dims: 8 } };
    const s = resolveEmbeddings(section, config(home), { url: 'http://127.0.0.1:2/v1', model: 'b' }, home);
    assert.deepEqual([s?.baseUrl, s?.model, s?.dims, s?.floor, s?.floorFrom], ['http://127.0.0.1:2/v1', 'b', 8, DEFAULT_SIMILARITY_FLOOR, 'default: not calibrated']);
    assert.throws(() => resolveEmbeddings(undefined, config(home), { url: 'http://127.0.0.1:2/v1' }, home), /no model named/);
    assert.throws(() => resolveEmbeddings(undefined, config(home), { url: 'localhost:2', model: 'b' }, home), /not an http/);
  });

  it('takes the floor the eval calibrated for the model, unless the config names one', () => {
    const home = tempDir('quackd-emb-floor-');
    writeFileSync(floorsFile(home), JSON.stringify({ 'nomic-embed-text': { floor: 0.55 }, 'other/64': { floor: 0.6 } }));
    const section = { embeddings: { base_url: 'http://127.0.0.1:1/v1', model: 'nomic-embed-text' } };
    assert.equal(resolveEmbeddings(section, config(home), {}, home)?.floor, 0.55);
    assert.equal(resolveEmbeddings({ embeddings: { ...section.embeddings, model: 'other', dims: 64 } }, config(home), {}, home)?.floor, 0.6);
    assert.equal(resolveEmbeddings({ embeddings: { ...section.embeddings, floor: 0.4 } }, config(home), {}, home)?.floor, 0.4);
  });

  it('reads the key from a 0600 key file relative to the config, and refuses one others can read', () => {
    const home = tempDir('quackd-emb-key-');
    writeFileSync(join(home, 'emb.key'), 'secret-embedding-key-123\n', { mode: 0o600 });
    const section = { embeddings: { base_url: 'http://127.0.0.1:1/v1', model: 'm', key_file: 'emb.key' } };
    assert.equal(resolveEmbeddings(section, config(home), {}, home)?.apiKey, 'secret-embedding-key-123');
    chmodSync(join(home, 'emb.key'), 0o644);
    assert.throws(() => resolveEmbeddings(section, config(home), {}, home), /open to other users/);
  });
});
