/** The LMDB store, for real in a temp dir: partitioning, rules through transactions, the cap, files, legacy import. */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BODY_CAP, HISTORY_MAX, MemoryRefusal } from '../../src/memory/entry.js';
import { EMPTY_FILE, lmdbFileProblem } from '../../src/memory/header-check.js';
import type { JsonlLine, JsonlParse } from '../../src/memory/jsonl.js';
import { StoreGuard, guardAddress } from '../../src/memory/guard.js';
import { DATA_FILE, LOCK_FILE, MemoryBusy, StoreError, openMemoryStore, type OpenOptions } from '../../src/memory/store.js';
import { tempDir } from '../helpers/tmp.js';
import { damagePageFlags, damageValue } from './damage.js';

/** Import lines as `memory import` parses them. */
function lines(items: readonly (Omit<JsonlLine, 'line' | 'tags' | 'kind'> & { kind?: JsonlLine['kind'] })[]): JsonlParse {
  return { lines: items.map((x, i) => ({ line: i + 1, tags: [], kind: 'note', ...x })), skipped: [] };
}

async function fresh(writes?: OpenOptions['writes']) {
  const dir = join(tempDir('quackd-mem-'), 'memory');
  const store = await openMemoryStore(dir, writes !== undefined ? { writes } : {});
  return { dir, store };
}

// Writes in the writer worker (the service's) and on the opening thread (a one-shot command's) obey the same rules.
for (const writes of ['worker', 'inline'] as const) {
  describe(`writes: ${writes}`, () => {
    describe('partitioning by body', () => {
      it('keeps each adapter:backend apart on every read and write', async () => {
        const { store } = await fresh(writes);
        const sim = store.body('microduck:sim2d');
        const mujoco = store.body('microduck:mujoco');
        const a = await sim.remember({ text: 'the ball is near the sofa', source: 'human' });
        await mujoco.remember({ text: 'the ball is near the sofa', source: 'human' });
        await mujoco.addEpisode({ text: 'find-and-kick: success' });
        assert.equal(sim.entries().length, 1);
        assert.equal(mujoco.entries().length, 2);
        assert.deepEqual(store.bodies(), ['microduck:mujoco', 'microduck:sim2d']);
        // An id from one body means nothing in another.
        assert.equal(await mujoco.forget(a.entry?.id ?? ''), undefined);
        assert.equal(await mujoco.clear(), 2);
        assert.equal(sim.entries().length, 1);
        assert.equal(mujoco.promptSelection().totalNotes, 0);
        await store.close();
      });
    });

    describe('rules through the store', () => {
      it('dedupes, supersedes and refuses inside one transaction each', async () => {
        const { store } = await fresh(writes);
        const m = store.body('microduck:sim2d');
        await m.remember({ text: 'the ball is in the kitchen', topic: 'ball', source: 'model' });
        await m.remember({ text: 'the charger is under the desk', source: 'human' });
        assert.equal((await m.remember({ text: 'the  charger is under the desk ', source: 'model' })).action, 'refreshed');
        assert.equal((await m.remember({ text: 'the ball is in the hall', topic: 'ball', source: 'model' })).action, 'superseded');
        await assert.rejects(m.remember({ text: 'password=hunter2', source: 'human' }), MemoryRefusal);
        await assert.rejects(m.remember({ text: 'y'.repeat(301), source: 'human' }), MemoryRefusal);
        const all = m.entries();
        assert.deepEqual(all.map((e) => e.text), ['the ball is in the hall', 'the charger is under the desk']);
        assert.ok(!JSON.stringify(all).includes('hunter2'));
        assert.deepEqual(store.invalid(), []);
        await store.close();
      });

      it('holds at most 400 entries per body, oldest episodes first, and keeps the order index whole', async () => {
        const { store } = await fresh(writes);
        const m = store.body('microduck:sim2d');
        // One transaction, as an import would write them.
        await m.importLines(lines([...Array.from({ length: 10 }, (_, i) => ({ text: `note ${i}` })), ...Array.from({ length: BODY_CAP }, (_, i) => ({ text: `episode ${i}`, kind: 'episode' as const }))]));
        const all = m.entries();
        assert.equal(all.length, BODY_CAP);
        assert.equal(all.filter((e) => e.kind === 'note').length, 10);
        assert.ok(!all.some((e) => e.text === 'episode 9'));
        assert.ok(all.some((e) => e.text === 'episode 10'));
        const sel = m.promptSelection();
        assert.deepEqual([sel.notes.length, sel.episodes.length, sel.totalNotes, sel.totalEpisodes], [10, 5, 10, 390]);
        assert.equal(sel.episodes[0]?.text, `episode ${BODY_CAP - 1}`);
        assert.deepEqual(store.invalid(), []);
        await store.close();
      });

      it('sees commits from another handle on the same files (no stale write cache)', async () => {
        const { dir, store } = await fresh(writes);
        // The other handle writes the other way: a service and a CLI command on one store.
        const other = await openMemoryStore(dir, { writes: writes === 'inline' ? 'worker' : 'inline' });
        const a = store.body('microduck:sim2d');
        const b = other.body('microduck:sim2d');
        await a.remember({ text: 'one', source: 'human' });
        await b.remember({ text: 'two', source: 'human' });
        await a.remember({ text: 'two', source: 'human' });
        await b.remember({ text: 'one', source: 'human' });
        assert.deepEqual(a.entries().map((e) => e.text), ['one', 'two']);
        assert.deepEqual(b.entries().map((e) => e.text), ['one', 'two']);
        await other.close();
        await store.close();
      });

      it('sees another handle’s commit made right after a write of its own that changed nothing', async () => {
        // LMDB does not use up the id of a write transaction that changed nothing: the other
        // handle's next commit takes it. A fleet merge that finds nothing new does exactly that.
        const { dir, store } = await fresh(writes);
        const other = await openMemoryStore(dir, { writes: writes === 'inline' ? 'worker' : 'inline' });
        const a = store.body('microduck:sim2d');
        const b = other.body('microduck:sim2d');
        await a.remember({ text: 'the ball is at spot 0', topic: 'ball', source: 'human' });
        assert.equal(await a.forget('n-absent'), undefined);
        await b.remember({ text: 'the ball is at spot 1', topic: 'ball', source: 'human' });
        const plan = await a.remember({ text: 'the ball is at spot 1', source: 'human' });
        assert.equal(plan.action, 'refreshed');
        assert.deepEqual(a.entries().map((e) => e.text), ['the ball is at spot 1']);
        assert.deepEqual(store.invalid(), []);
        await other.close();
        await store.close();
      });
    });
  });
}

describe('writes on the opening thread (a one-shot command)', () => {
  it('waits for another holder of the store without blocking the event loop, gives up busy at its bound writing nothing, and keeps queued writes in order', async () => {
    const { dir, store } = await fresh('inline');
    const m = store.body('microduck:sim2d');
    // Another holder (a second process would exclude the same way): the write waits, asynchronously.
    const holder = new StoreGuard(guardAddress(dir));
    assert.ok(holder.tryAcquire());
    const waiting = m.remember({ text: 'written once the holder lets go', source: 'human' });
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 5);
    await new Promise((resolve) => setTimeout(resolve, 150));
    clearInterval(ticker);
    assert.ok(ticks >= 5, `the event loop ran ${ticks} times while the write waited`);
    holder.release();
    assert.equal((await waiting).action, 'added');
    assert.ok(holder.tryAcquire());
    await assert.rejects(m.remember({ text: 'never written', source: 'human' }, { waitMs: 100 }), MemoryBusy);
    holder.release();
    assert.deepEqual(m.entries().map((e) => e.text), ['written once the holder lets go']);
    // Queued writes keep their order and each its own transaction.
    const plans = await Promise.all(['one', 'two', 'three'].map((text) => m.addEpisode({ text })));
    assert.deepEqual(plans.map((p) => p.entry?.text), ['one', 'two', 'three']);
    await store.close();
    await assert.rejects(m.remember({ text: 'after close', source: 'human' }), StoreError);
  });
});

describe('files', () => {
  it('creates 0600 files in a 0700 directory', async () => {
    const { dir, store } = await fresh();
    await store.body('microduck:sim2d').remember({ text: 'x marks the spot', source: 'human' });
    await store.close();
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(join(dir, DATA_FILE)).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, LOCK_FILE)).mode & 0o777, 0o600);
  });

  it('a read-only open creates nothing', async () => {
    const dir = join(tempDir('quackd-mem-'), 'memory');
    await assert.rejects(openMemoryStore(dir, { readOnly: true }), StoreError);
    assert.equal(existsSync(dir), false);
  });

  it('refuses a data file that is not LMDB instead of crashing', async () => {
    const dir = tempDir('quackd-mem-');
    writeFileSync(join(dir, DATA_FILE), Buffer.alloc(20000, 7));
    await assert.rejects(openMemoryStore(dir), /not an LMDB database/);
    writeFileSync(join(dir, DATA_FILE), 'hello');
    await assert.rejects(openMemoryStore(dir), StoreError);
  });
});

describe('a damaged data file', () => {
  async function withNeedle() {
    const { dir, store } = await fresh();
    const m = store.body('microduck:sim2d');
    for (let i = 0; i < 60; i += 1) await m.remember({ text: `filler note ${i} about the hallway`, source: 'human' });
    await m.remember({ text: 'the needle note sits under the sofa', source: 'human' });
    await store.close();
    return { dir, file: join(dir, DATA_FILE) };
  }

  it('refuses a store with a damaged inner B-tree page before LMDB can crash on it', async () => {
    const { dir, file } = await withNeedle();
    assert.equal(lmdbFileProblem(file), undefined);
    damagePageFlags(file, 'needle note');
    assert.match(lmdbFileProblem(file) ?? '', /^the data file is damaged \(page \d+: not a B-tree page\)$/);
    await assert.rejects(openMemoryStore(dir, { readOnly: true }), StoreError);
  });

  it('finds nothing wrong with healthy stores of every shape: several bodies, evictions, clears, overflow pages', async () => {
    const { dir, store } = await fresh();
    const file = join(dir, DATA_FILE);
    const bodies = ['microduck:sim2d', 'microduck:mujoco', 'reachy-mini:mock'] as const;
    for (const [i, key] of bodies.entries()) {
      const m = store.body(key);
      await m.importLines(
        lines([
          ...Array.from({ length: BODY_CAP + 50 }, (_, n) => ({ text: `episode ${n} ${'x'.repeat(n % 200)}`, kind: 'episode' as const })),
          ...Array.from({ length: 40 }, (_, n) => ({ text: `fact ${n} ${'y'.repeat(n * 5)}`, topic: `t${n % 7}` })),
        ]),
      );
      if (i === 1) await m.clear();
      assert.equal(lmdbFileProblem(file), undefined, key);
    }
    // An entry with a long history is bigger than a page: LMDB puts it on overflow pages.
    const history = Array.from({ length: HISTORY_MAX }, (_, n) => ({ time: '2026-01-01T00:00:00.000Z', text: `${n} ${'z'.repeat(290)}`, source: 'human' as const }));
    await store.body('microduck:sim2d').importLines(lines([{ text: 'a note with a long past', history }]));
    assert.equal(lmdbFileProblem(file), undefined);
    await store.close();
    assert.equal(lmdbFileProblem(file), undefined);
  });

  it('refuses a file LMDB would refuse on open: either meta page bad, encrypted, page size, truncated, empty read-only, a directory', async () => {
    const { file } = await withNeedle();
    const good = readFileSync(file);
    const newer = good.readBigUInt64LE(4096 + 152) > good.readBigUInt64LE(152) ? 1 : 0;
    const cases: [string, (b: Buffer) => Buffer, RegExp][] = [
      ['newer meta: magic and version zeroed', (b) => b.fill(0, newer * 4096 + 24, newer * 4096 + 32), new RegExp(`^the data file is not an LMDB database \\(meta page ${newer}: no LMDB magic number\\)$`)],
      ['page 0 zeroed', (b) => b.fill(0, 0, 4096), /meta page 0: not a meta page/],
      ['page 1 zeroed', (b) => b.fill(0, 4096, 8192), /meta page 1: not a meta page/],
      ['data version 3', (b) => (b.writeUInt16LE(3, 24 + 4), b), /LMDB data version 3, not 2/],
      ['flagged as encrypted', (b) => (b.writeUInt16LE(b.readUInt16LE(24 + 28) | 0x2000, 24 + 28), b), /flagged as encrypted/],
      ['page size 0', (b) => (b.writeUInt32LE(0, 24 + 24), b), /page size 0/],
      ['cut inside a meta page', (b) => b.subarray(0, 100), /truncated \(a meta page is cut short\)/],
      ['the last page cut off', (b) => b.subarray(0, b.length - 4096), /truncated/],
    ];
    for (const [label, damage, expected] of cases) {
      writeFileSync(file, damage(Buffer.from(good)));
      assert.match(lmdbFileProblem(file) ?? '', expected, label);
      assert.match(lmdbFileProblem(file, { readOnly: true }) ?? '', expected, label);
    }
    // LMDB compares only the low 16 bits of the version.
    const high = Buffer.from(good);
    high.writeUInt16LE(1, 24 + 6);
    writeFileSync(file, high);
    assert.equal(lmdbFileProblem(file), undefined);
    writeFileSync(file, '');
    assert.equal(lmdbFileProblem(file), undefined);
    assert.equal(lmdbFileProblem(file, { readOnly: true }), EMPTY_FILE);
    const dir = tempDir('quackd-mem-');
    mkdirSync(join(dir, DATA_FILE));
    assert.match(lmdbFileProblem(join(dir, DATA_FILE)) ?? '', /^the data file .* is a directory$/);
    await assert.rejects(openMemoryStore(dir, { readOnly: true }), /is a directory/);
  });

  it('skips an entry whose JSON is damaged: the rest reads, doctor names it, clear removes it', async () => {
    const { dir, file } = await withNeedle();
    damageValue(file, 'needle note');
    assert.equal(lmdbFileProblem(file), undefined);
    const store = await openMemoryStore(dir);
    const m = store.body('microduck:sim2d');
    assert.equal(m.entries().length, 60);
    assert.equal(m.promptSelection().notes.length, 20);
    assert.deepEqual(store.invalid().map((i) => i.problem), ['not readable (damaged JSON)']);
    assert.equal((await m.remember({ text: 'written after the damage', source: 'human' })).action, 'added');
    assert.equal(await m.clear(), 62);
    assert.deepEqual(store.invalid(), []);
    assert.deepEqual(store.bodies(), []);
    await store.close();
  });
});

describe('legacy per-body files', () => {
  for (const writes of ['worker', 'inline'] as const) {
    it(`imports <adapter>-<backend>.jsonl once on first open, then renames it (writes: ${writes})`, async () => {
      const dir = join(tempDir('quackd-mem-'), 'memory');
      const { store: first } = { store: await openMemoryStore(dir, { writes }) };
      await first.close();
      writeFileSync(join(dir, 'microduck-sim2d.jsonl'), '{"text":"the ball is under the sofa"}\nnot json\n{"text":"found the ball","kind":"episode"}\n');
      const store = await openMemoryStore(dir, { writes });
      const warnings = await store.importLegacy();
      assert.equal(warnings.length, 1);
      assert.match(warnings[0] ?? '', /microduck-sim2d\.jsonl: skipped 1 line \(2: not JSON\)/);
      assert.equal(store.body('microduck:sim2d').entries().length, 2);
      assert.ok(readdirSync(dir).includes('microduck-sim2d.jsonl.imported'));
      assert.deepEqual(await store.importLegacy(), []);
      // Put back by hand with the same bytes: the marker recognises it and nothing is doubled.
      writeFileSync(join(dir, 'microduck-sim2d.jsonl'), '{"text":"the ball is under the sofa"}\n{"text":"found the ball","kind":"episode"}\n');
      await store.importLegacy();
      assert.equal(store.body('microduck:sim2d').entries().filter((e) => e.kind === 'note').length, 1);
      await store.close();
    });
  }
});
