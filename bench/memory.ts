/**
 * Memory bench: `remember` latency and prompt-render time with a body at the cap (400 entries),
 * for the LMDB store against the two obvious alternatives doing the same work in the same run:
 * a plain JSONL file (append, or rewrite when over the cap) and SQLite (better-sqlite3, WAL).
 * Every write is durable (fsync / synchronous=FULL / LMDB's flushed commit), dedupes against the
 * body's notes and evicts the oldest episode; every render selects the newest 20 notes and 5
 * episodes and renders the same block. Run: node --import tsx bench/memory.ts
 */
import { closeSync, fsyncSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { BODY_CAP, type Entry } from '../src/memory/entry.js';
import { renderPromptBlock, selectForPrompt } from '../src/memory/render.js';
import { newestFirst, planEpisode, planNote } from '../src/memory/rules.js';
import { lmdbFileProblem } from '../src/memory/header-check.js';
import { DATA_FILE, openMemoryStore } from '../src/memory/store.js';
import { fmt, median, percentile } from './_stats.js';

const BODY = 'microduck:sim2d';
const WRITES = 150;
const RENDERS = 400;
const root = mkdtempSync(join(tmpdir(), 'quackd-bench-'));

interface Backend {
  readonly name: string;
  remember(text: string): void | Promise<unknown>;
  render(): string;
  close(): void | Promise<void>;
}

/** 40 notes and 360 episodes, planned by the real rules so every backend starts identical. */
function seed(): Entry[] {
  let entries: Entry[] = [];
  let t = Date.parse('2026-01-01T00:00:00Z');
  for (let i = 0; i < BODY_CAP; i += 1) {
    const ctx = { body: BODY, now: new Date((t += 60_000)).toISOString() };
    const plan = i % 10 === 0 ? planNote(entries, { text: `seed note ${i}: the ball was near the wall`, source: 'model' }, ctx) : planEpisode(entries, { text: `find-and-kick: success — ball displaced 0.4${i % 10} m (4 steps) · kick: ball moved` }, ctx);
    entries = [...entries.filter((e) => !plan.del.includes(e.id)), ...plan.put];
  }
  return entries;
}

async function lmdbBackend(entries: readonly Entry[]): Promise<Backend> {
  const store = await openMemoryStore(join(root, 'lmdb'));
  const body = store.body(BODY);
  const lines = [...entries].sort((a, b) => a.seq - b.seq).map(({ seq: _seq, v: _v, body: _body, ...e }, i) => ({ ...e, line: i + 1 }));
  await body.importLines({ lines, skipped: [] });
  // A remember is a job for the writer worker: the main thread only waits for its answer.
  return { name: 'LMDB (quackd store)', remember: (text) => body.remember({ text, source: 'model' }), render: () => renderPromptBlock(BODY, body.promptSelection()), close: () => store.close() };
}

function jsonlBackend(entries: readonly Entry[]): Backend {
  const path = join(root, 'memory.jsonl');
  const durableWrite = (file: string, data: string, flag: 'a' | 'w') => {
    const fd = openSync(file, flag, 0o600);
    writeSync(fd, data);
    fsyncSync(fd);
    closeSync(fd);
  };
  durableWrite(path, entries.map((e) => `${JSON.stringify(e)}\n`).join(''), 'w');
  const load = () => readFileSync(path, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Entry);
  return {
    name: 'JSONL file',
    remember(text) {
      const current = load();
      const plan = planNote(current, { text, source: 'model' }, { body: BODY, now: new Date().toISOString() });
      if (plan.del.length === 0) return durableWrite(path, plan.put.map((e) => `${JSON.stringify(e)}\n`).join(''), 'a');
      // Over the cap an append is not enough: rewrite the file, atomically.
      const next = [...current.filter((e) => !plan.del.includes(e.id) && !plan.put.some((p) => p.id === e.id)), ...plan.put];
      durableWrite(`${path}.tmp`, next.map((e) => `${JSON.stringify(e)}\n`).join(''), 'w');
      renameSync(`${path}.tmp`, path);
    },
    render: () => renderPromptBlock(BODY, selectForPrompt(newestFirst(load()))),
    close: () => undefined,
  };
}

/**
 * better-sqlite3 is this bench's alone, so not a dependency of quackd: its install compiles SQLite
 * from source where no prebuilt binary can be fetched from outside npm (4.5 of a first install's
 * 6.5 minutes). Without it the SQLite baseline is skipped, and the bench says how to add it.
 */
async function loadSqlite(): Promise<typeof BetterSqlite3 | undefined> {
  try {
    return (await import('better-sqlite3')).default;
  } catch (err) {
    console.log(`SQLite baseline skipped: better-sqlite3 cannot be loaded (${(err instanceof Error ? err.message : String(err)).split('\n')[0] ?? ''}); 'npm install --no-save better-sqlite3' adds it for the bench`);
    return undefined;
  }
}

function sqliteBackend(Database: typeof BetterSqlite3, entries: readonly Entry[]): Backend {
  const db = new Database(join(root, 'memory.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE entries (body TEXT, id TEXT, kind TEXT, text TEXT, seq INTEGER, json TEXT, PRIMARY KEY (body, id)); CREATE INDEX by_kind ON entries (body, kind, seq);');
  const insert = db.prepare('INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?)');
  const put = (e: Entry) => insert.run(BODY, e.id, e.kind, e.text, e.seq, JSON.stringify(e));
  db.transaction(() => entries.forEach(put))();
  const same = db.prepare("SELECT json FROM entries WHERE body = ? AND kind = 'note' AND text = ?");
  const maxSeq = db.prepare('SELECT COALESCE(MAX(seq), 0) AS m, COUNT(*) AS n FROM entries WHERE body = ?');
  const oldest = db.prepare("SELECT id FROM entries WHERE body = ? ORDER BY kind = 'note', seq LIMIT ?");
  const del = db.prepare('DELETE FROM entries WHERE body = ? AND id = ?');
  const newest = db.prepare('SELECT json FROM entries WHERE body = ? AND kind = ? ORDER BY seq DESC LIMIT ?');
  const count = db.prepare('SELECT COUNT(*) AS n FROM entries WHERE body = ? AND kind = ?');
  const remember = db.transaction((text: string) => {
    const { m, n } = maxSeq.get(BODY) as { m: number; n: number };
    const found = same.get(BODY, text) as { json: string } | undefined;
    const now = new Date().toISOString();
    const entry: Entry = found !== undefined ? { ...(JSON.parse(found.json) as Entry), time: now, seq: m + 1 } : { v: 1, id: `n-${m + 1}`, kind: 'note', body: BODY, text, tags: [], source: 'model', created: now, time: now, seq: m + 1, history: [] };
    put(entry);
    const over = n + (found === undefined ? 1 : 0) - BODY_CAP;
    if (over > 0) for (const r of oldest.all(BODY, over) as { id: string }[]) del.run(BODY, r.id);
  });
  return {
    name: 'SQLite (better-sqlite3, WAL)',
    remember: (text) => remember(text),
    render: () => {
      const rows = (kind: string, n: number) => (newest.all(BODY, kind, n) as { json: string }[]).map((r) => JSON.parse(r.json) as Entry);
      const total = (kind: string) => (count.get(BODY, kind) as { n: number }).n;
      return renderPromptBlock(BODY, { notes: rows('note', 20), episodes: rows('episode', 5), totalNotes: total('note'), totalEpisodes: total('episode'), copies: new Map() });
    },
    close: () => void db.close(),
  };
}

async function measure(b: Backend): Promise<{ write: number[]; render: number[] }> {
  const write: number[] = [];
  const render: number[] = [];
  for (let i = 0; i < WRITES; i += 1) {
    const t0 = process.hrtime.bigint();
    await b.remember(`the ball was seen near the sofa, sighting ${i}`);
    write.push(Number(process.hrtime.bigint() - t0) / 1e3);
  }
  for (let i = 0; i < RENDERS; i += 1) {
    const t0 = process.hrtime.bigint();
    if (b.render().length === 0) throw new Error('empty render');
    render.push(Number(process.hrtime.bigint() - t0) / 1e3);
  }
  return { write, render };
}

try {
  const entries = seed();
  const results = [];
  const Database = await loadSqlite();
  const makers: ((e: readonly Entry[]) => Backend | Promise<Backend>)[] = [lmdbBackend, jsonlBackend];
  if (Database !== undefined) makers.push((e) => sqliteBackend(Database, e));
  for (const make of makers) {
    const b = await make(entries);
    await measure(b); // warm-up pass: JIT, page cache
    const r = await measure(b);
    await b.close();
    results.push({ name: b.name, ...r });
  }
  const us = (n: number) => (n >= 1000 ? `${fmt(n / 1000, 2)} ms` : `${fmt(n, 0)} µs`);
  console.log(`memory at the cap (${BODY_CAP} entries per body) · ${WRITES} durable remembers, ${RENDERS} prompt renders per backend`);
  console.log('backend                        remember p50   p95        render p50   p95');
  for (const r of results) {
    console.log(`${r.name.padEnd(30)} ${us(median(r.write)).padStart(10)} ${us(percentile(r.write, 95)).padStart(10)}   ${us(median(r.render)).padStart(10)} ${us(percentile(r.render, 95)).padStart(10)}`);
  }
  // A process's first write reads the whole body; later ones reuse it while no other process commits.
  const cold: number[] = [];
  for (let i = 0; i < 30; i += 1) {
    const store = await openMemoryStore(join(root, 'lmdb'));
    const t0 = process.hrtime.bigint();
    await store.body(BODY).remember({ text: `cold write ${i}`, source: 'model' });
    cold.push(Number(process.hrtime.bigint() - t0) / 1e3);
    await store.close();
  }
  console.log(`LMDB first remember after opening the store (no write cache yet): p50 ${us(median(cold))}`);
  // Every open first walks the data file's B-trees (src/memory/header-check.ts), so damage cannot crash LMDB.
  const file = join(root, 'lmdb', DATA_FILE);
  const check: number[] = [];
  for (let i = 0; i < 30; i += 1) {
    const t0 = process.hrtime.bigint();
    if (lmdbFileProblem(file) !== undefined) throw new Error('the bench store looks damaged');
    check.push(Number(process.hrtime.bigint() - t0) / 1e3);
  }
  console.log(`LMDB structural check on every open (${Math.round(statSync(file).size / 1024)} KiB file): p50 ${us(median(check))}, p95 ${us(percentile(check, 95))}`);
  const [lmdb, ...others] = results;
  if (lmdb !== undefined) {
    for (const o of others) {
      console.log(`LMDB vs ${o.name}: remember ×${fmt(median(lmdb.write) / median(o.write), 2)}, render ×${fmt(median(lmdb.render) / median(o.render), 2)} (below 1: LMDB faster)`);
    }
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
