/** The RunMemory a run gets: prompt block, remember (saved, refused, dry run), episodes, and a factory that never throws. */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { composeEpisode, openRunMemory } from '../../src/run/open-run-memory.js';
import { DATA_FILE, openMemoryStore } from '../../src/memory/store.js';
import type { EpisodeFacts } from '../../src/pilot/run-memory.js';
import { defaultVerbs, verbJsonSchema } from '../../src/verbs/registry.js';
import { remember } from '../../src/verbs/remember.js';
import { tempDir } from '../helpers/tmp.js';

const ctx = { runId: '20261130-012203-find-and-kick', dryRun: false };
const facts: EpisodeFacts = {
  runId: ctx.runId,
  duck: 'find-and-kick',
  outcome: 'success',
  reason: 'ball displaced 0.49 m',
  steps: 4,
  results: ['search_scan: ball found at bearing 18° left, 1.2 m', 'turn: facing the ball', 'kick: ball moved 0.49 m'],
};

async function open(dir = join(tempDir('quackd-mem-'), 'memory')) {
  const opened = await openRunMemory({ body: 'microduck:sim2d', dir, duck: 'find-and-kick' });
  assert.ok(opened.memory, opened.notice);
  return { dir, memory: opened.memory };
}

describe('openRunMemory', () => {
  it('offers remember and recall as memory verbs, and only through RunMemory', async () => {
    const { memory } = await open();
    assert.deepEqual(memory.verbs.map((v) => [v.name, v.kind]), [['remember', 'memory'], ['recall', 'memory']]);
    assert.equal(defaultVerbs.get('remember'), undefined);
    assert.equal(defaultVerbs.get('recall'), undefined);
    assert.equal(memory.summaryLine, 'memory: nothing yet (microduck:sim2d)');
    await memory.close();
    await memory.close();
  });

  it('remember saves a note, says so, and records a memory event; the next run is told', async () => {
    const { dir, memory } = await open();
    const r = await memory.handle('remember', { text: 'the ball was near the left wall', tags: ['place'] }, ctx);
    assert.equal(r.result.ok, true);
    assert.equal(r.result.summary, 'remembered for future runs: the ball was near the left wall');
    assert.equal(r.events[0]?.action, 'remember');
    assert.equal(r.events[0]?.detail['text'], 'the ball was near the left wall');
    const again = await memory.handle('remember', { text: 'the ball was near the left wall' }, ctx);
    assert.match(again.result.summary, /already known/);
    assert.equal((await memory.writeEpisode(facts))?.action, 'episode');
    await memory.close();
    const next = await open(dir);
    assert.equal(next.memory.summaryLine, 'memory: 1 note, 1 earlier run (microduck:sim2d)');
    assert.match(next.memory.promptBlock, /- \[you, \d{4}-\d\d-\d\d \d\d:\d\d UTC, #place\] "the ball was near the left wall"/);
    assert.match(next.memory.promptBlock, /"find-and-kick: success — ball displaced 0.49 m \(4 steps\) · search_scan: ball found/);
    await next.memory.close();
  });

  it('under dry run nothing is saved and the result says so', async () => {
    const { dir, memory } = await open();
    const r = await memory.handle('remember', { text: 'the sofa moved' }, { ...ctx, dryRun: true });
    assert.equal(r.result.ok, true);
    assert.match(r.result.summary, /not saved: dry run$/);
    await memory.close();
    const store = await openMemoryStore(dir, { readOnly: true });
    assert.equal(store.body('microduck:sim2d').entries().length, 0);
    await store.close();
  });

  it('refuses secrets and over-long notes, and neither the result nor the event carries the text', async () => {
    const { dir, memory } = await open();
    for (const text of ['wifi password=hunter2', 'key sk-ant-api03-abcdefghijklmnopqrstuv']) {
      for (const dryRun of [false, true]) {
        const r = await memory.handle('remember', { text }, { ...ctx, dryRun });
        assert.equal(r.result.ok, false);
        assert.match(r.result.summary, /^not saved: it looks like/);
        assert.ok(!JSON.stringify(r).includes(text.slice(-8)));
      }
    }
    const long = await memory.handle('remember', { text: 'z'.repeat(301) }, ctx);
    assert.equal(long.result.ok, false);
    assert.match(long.result.summary, /300 characters/);
    await memory.close();
    const data = readFileSync(join(dir, DATA_FILE));
    assert.equal(data.includes('hunter2'), false);
    assert.equal(data.includes('abcdefghijklmnopqrstuv'), false);
  });

  it('refuses a secret in a tag or topic, dry run or not, and keeps it out of the result, the events and the file', async () => {
    const { dir, memory } = await open();
    const secret = 'ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
    for (const args of [{ text: 'the router is in the hall', tags: [secret.slice(0, 30)] }, { text: 'the router is in the hall', topic: `token ${secret}` }]) {
      for (const dryRun of [false, true]) {
        const r = await memory.handle('remember', args, { ...ctx, dryRun });
        assert.equal(r.result.ok, false, JSON.stringify(r));
        assert.match(r.result.summary, /^not saved: it looks like a GitHub token, in (a tag|its topic);/);
        assert.deepEqual(r.events.map((e) => e.action), ['refused']);
        assert.ok(!JSON.stringify(r).includes('ABCDEFGHIJ'));
      }
    }
    await memory.close();
    assert.equal(readFileSync(join(dir, DATA_FILE)).includes('ABCDEFGHIJ'), false);
  });

  it('counts a note\'s 300 characters as every path does: code points, after folding whitespace', async () => {
    const { memory } = await open();
    for (const text of ['🦆'.repeat(300), `${'a '.repeat(150)}${' '.repeat(100)}`]) {
      assert.equal(remember.input.safeParse({ text }).success, true);
      const r = await memory.handle('remember', { text }, ctx);
      assert.equal(r.result.ok, true, r.result.summary);
    }
    const long = await memory.handle('remember', { text: '🦆'.repeat(301) }, ctx);
    assert.equal(long.result.ok, false);
    assert.match(long.result.summary, /^not saved: a note is at most 300 characters \(this one has 301\)/);
    assert.equal((verbJsonSchema(remember)['properties'] as Record<string, { maxLength?: number }>)['text']?.maxLength, 300);
    await memory.close();
  });

  it('writes the episode of a duck with a long name (a slug, not a key)', async () => {
    const { memory } = await open();
    const event = await memory.writeEpisode({ ...facts, duck: 'fetch-the-ball-from-the-kitchen-2' });
    assert.equal(event?.detail['saved'], true, JSON.stringify(event));
    await memory.close();
  });

  it('composes an episode line within 300 characters', () => {
    assert.equal(composeEpisode(facts, 'x'), 'find-and-kick: success — ball displaced 0.49 m (4 steps) · search_scan: ball found at bearing 18° left, 1.2 m; turn: facing the ball; kick: ball moved 0.49 m');
    const many = composeEpisode({ ...facts, results: Array.from({ length: 40 }, (_, i) => `walk: stopped after ${i} m`) }, 'x');
    assert.ok([...many].length <= 300);
  });
});

describe('a store that cannot be opened', () => {
  const cases: [string, (dir: string) => void][] = [
    ['the memory dir is a file', (dir) => writeFileSync(dir, 'not a directory')],
    ['the data file is garbage', (dir) => (mkdirSync(dir, { recursive: true }), writeFileSync(join(dir, DATA_FILE), Buffer.alloc(65536, 0x5a)))],
    ['the data file is all zeroes', (dir) => (mkdirSync(dir, { recursive: true }), writeFileSync(join(dir, DATA_FILE), Buffer.alloc(8192)))],
  ];
  for (const [name, damage] of cases) {
    it(`gives no memory and a one-line notice when ${name}`, async () => {
      const dir = join(tempDir('quackd-mem-'), 'memory');
      damage(dir);
      const opened = await openRunMemory({ body: 'microduck:sim2d', dir, duck: 'find-and-kick' });
      assert.equal(opened.memory, undefined);
      assert.match(opened.notice ?? '', /^memory: off for this run — /);
      assert.ok(!(opened.notice ?? '').includes('\n'));
    });
  }

  it('gives a notice for a truncated store', async () => {
    const { dir, memory } = await open();
    for (let i = 0; i < 50; i += 1) await memory.handle('remember', { text: `fact number ${i} about the living room` }, ctx);
    await memory.close();
    truncateSync(join(dir, DATA_FILE), 4096 * 2 + 100);
    const opened = await openRunMemory({ body: 'microduck:sim2d', dir, duck: 'find-and-kick' });
    assert.equal(opened.memory, undefined);
    assert.match(opened.notice ?? '', /truncated|damaged/);
  });

  it('turns a failing write into a result, not an exception', async () => {
    const { dir, memory } = await open();
    chmodSync(dir, 0o700);
    await memory.close();
    const r = await memory.handle('remember', { text: 'after close' }, ctx);
    assert.equal(r.result.ok, false);
    assert.match(r.result.summary, /memory store failed/);
    assert.equal((await memory.writeEpisode(facts))?.action, 'error');
  });
});
