/**
 * The memory writer lets its worker go when it has had nothing to do for a while (a service
 * holding a store all day keeps ~20 MB less), and the next write starts one again with the store
 * reopened: nothing written before or after is lost, also when writes keep landing just as the
 * worker is being let go.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openMemoryStore } from '../../src/memory/store.js';
import { setWriterIdleMs, writerWorking } from '../../src/memory/writer.js';
import { tempDir } from '../helpers/tmp.js';

const IDLE_MS = 60;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) assert.fail(`${what} within ${ms} ms`);
    await sleep(5);
  }
}

describe('an idle memory writer', () => {
  before(() => setWriterIdleMs(IDLE_MS));
  after(() => setWriterIdleMs(30_000));

  it('lets its worker go, and the next write reopens the store in a new one: both notes are there', async () => {
    const store = await openMemoryStore(join(tempDir('quackd-writer-idle-'), 'memory'));
    try {
      const duck = store.body('microduck:sim2d');
      await duck.remember({ text: 'the charger is behind the sofa', source: 'human' });
      assert.equal(writerWorking(), true);
      await until('the idle writer lets its worker go', () => !writerWorking());
      await duck.remember({ text: 'the red ball rolls under the radiator', source: 'human' });
      assert.equal(writerWorking(), true);
      assert.deepEqual(
        duck.entries().map((e) => e.text).sort(),
        ['the charger is behind the sofa', 'the red ball rolls under the radiator'],
      );
    } finally {
      await store.close();
    }
  });

  it('writes that land as the worker is let go (every gap around the idle time) are all kept, in two stores', async () => {
    const root = tempDir('quackd-writer-race-');
    const a = await openMemoryStore(join(root, 'a'));
    const b = await openMemoryStore(join(root, 'b'));
    try {
      const texts: string[] = [];
      for (let i = 0; i < 40; i++) {
        // Gaps from well before to just after the idle time, so some writes meet a retiring worker.
        await sleep(IDLE_MS - 20 + (i % 9) * 5);
        const text = `lesson ${i}: kick with the left foot near the rug`;
        texts.push(text);
        await Promise.all([a.body('microduck:sim2d').remember({ text, source: 'human' }), b.body('microduck:mujoco').addEpisode({ text: `episode ${i}` })]);
      }
      assert.deepEqual(a.body('microduck:sim2d').entries().map((e) => e.text).sort(), [...texts].sort());
      assert.deepEqual(b.body('microduck:mujoco').entries().map((e) => e.text).sort(), texts.map((_, i) => `episode ${i}`).sort());
    } finally {
      await a.close();
      await b.close();
    }
  });
});
