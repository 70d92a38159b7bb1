/** `npm run eval:memory -- --embeddings URL --calibrate` end to end against a loopback /v1/embeddings: it scores words and meaning fused and stores the floor it measured. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { tempDir } from '../helpers/tmp.js';
import { startEmbeddingServer, type EmbeddingServer } from './embedding-server.js';

const EVAL = fileURLToPath(new URL('../../bench/memory-eval.ts', import.meta.url));

describe('memory eval with embeddings', () => {
  let server: EmbeddingServer;
  before(async () => {
    server = await startEmbeddingServer();
  });
  after(async () => {
    await server.close();
  });

  it('runs end to end and stores the calibrated floor for the model', { timeout: 300_000 }, async () => {
    const home = tempDir('quackd-eval-embed-');
    const child = spawn(process.execPath, ['--import', 'tsx', EVAL, '--embeddings', server.url, '--embeddings-model', 'concepts-v1', '--calibrate'], { env: { ...process.env, QUACKD_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, err);
    assert.match(out, /words \+ meaning \(concepts-v1 at http:\/\/127\.0\.0\.1:\d+\/v1; (\d+)\/\1 entries embedded/);
    assert.match(out, /stored: similarity floor \d\.\d\d for concepts-v1/);
    const floors = JSON.parse(readFileSync(join(home, 'embedding-floors.json'), 'utf8')) as Record<string, { floor: number }>;
    assert.equal(typeof floors['concepts-v1']?.floor, 'number');
  });
});
