/** Several processes on one store: concurrent writers lose and duplicate nothing; a killed writer loses no ack. */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { lmdbFileProblem } from '../../src/memory/header-check.js';
import { DATA_FILE, openMemoryStore } from '../../src/memory/store.js';
import { tempDir } from '../helpers/tmp.js';

const WRITER = fileURLToPath(new URL('./writer-child.ts', import.meta.url));

function writer(args: readonly string[], onAck?: (count: number, child: ChildProcess) => void): Promise<{ acks: string[]; signal: NodeJS.Signals | null; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acks: string[] = [];
    let buf = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const l of lines) if (l.startsWith('ack ')) acks.push(l.slice(4));
      onAck?.(acks.length, child);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ acks, code, signal, stderr }));
  });
}

describe('multi-process safety', () => {
  it('two processes writing at once: nothing acknowledged lost, nothing duplicated', async () => {
    const dir = join(tempDir('quackd-mem-'), 'memory');
    const [a, b] = await Promise.all([writer([dir, 'alpha', '120', '20']), writer([dir, 'beta', '120', '20'])]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    const store = openMemoryStore(dir, { readOnly: true });
    const entries = store.body('microduck:sim2d').entries();
    const ids = new Set(entries.map((e) => e.id));
    for (const id of [...a.acks, ...b.acks]) assert.ok(ids.has(id), `acknowledged ${id} is missing`);
    const texts = entries.map((e) => e.text);
    assert.equal(new Set(texts).size, texts.length, 'a note was duplicated');
    assert.equal(entries.length, 120 + 120 + 20);
    assert.deepEqual(store.invalid(), []);
    await store.close();
  });

  it('a writer killed with SIGKILL mid-stream leaves a store that opens with every acknowledged entry', async () => {
    const dir = join(tempDir('quackd-mem-'), 'memory');
    let killed = false;
    const r = await writer([dir, 'doomed', '350'], (n, child) => {
      if (n >= 40 && !killed) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    assert.equal(r.signal, 'SIGKILL');
    assert.ok(r.acks.length >= 40);
    assert.equal(lmdbFileProblem(join(dir, DATA_FILE)), undefined);
    const store = openMemoryStore(dir);
    const ids = new Set(store.body('microduck:sim2d').entries().map((e) => e.id));
    for (const id of r.acks) assert.ok(ids.has(id), `acknowledged ${id} is missing`);
    assert.deepEqual(store.invalid(), []);
    // And it still takes writes.
    assert.equal(store.body('microduck:sim2d').remember({ text: 'after the crash', source: 'human' }).action, 'added');
    await store.close();
  });
});

describe('a fresh store opened by many processes at once', () => {
  // The pre-open damage check must not mistake a file another process is still creating or
  // growing for a truncated one.
  it('six `quackd memory add` at once on a new store all succeed, rounds after round', async () => {
    const { runCli } = await import('../helpers/cli.js');
    for (let round = 0; round < 8; round++) {
      const home = tempDir();
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => runCli(['memory', 'add', `note ${i} of round ${round}`], { env: { QUACKD_HOME: home } })));
      for (const r of results) assert.equal(r.code, 0, r.stderr);
      const store = openMemoryStore(join(home, 'memory'), { readOnly: true });
      try {
        assert.equal(store.body('microduck:sim2d').entries().length, 6);
      } finally {
        await store.close();
      }
    }
  });
});
