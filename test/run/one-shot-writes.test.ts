/**
 * A one-shot command writes memory on its own thread: `quackd run` in this process and `memory
 * add` save what they save without starting the writer worker, whose start (a second zod and
 * lmdb) cost a CLI run a third of a second before its first step (bench/startup.ts times it).
 * In a file of its own: no earlier test of this process may have started a worker.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { writerWorking } from '../../src/memory/writer.js';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';

describe('memory writes of a one-shot command', () => {
  it('run and memory add save their episode and note with no writer worker', async () => {
    const env = { QUACKD_HOME: join(tempDir(), 'home') };
    const run = await quackd(['run', 'hello-world', '--local'], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(writerWorking(), false);
    const add = await quackd(['memory', 'add', 'the charger is under the desk'], { env });
    assert.equal(add.code, 0, add.stderr);
    assert.equal(writerWorking(), false);
    const show = await quackd(['memory', 'show', '--raw'], { env });
    const entries = show.stdout.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; text: string });
    assert.deepEqual(entries.map((e) => e.kind).sort(), ['episode', 'note']);
    assert.match(entries.find((e) => e.kind === 'episode')?.text ?? '', /^hello-world: success/);
  });
});
