/**
 * Damaged memory-store files never crash quackd (issue 8). A seeded fuzz of a few hundred damaged
 * copies of a real store runs in one child process (test/memory/damage-child.ts): the header check
 * refuses a copy or lmdb-js opens, reads and writes it, and the child must never die. Then the
 * named damage from the issue and a sample of the fuzz cases go through the built CLI (`memory
 * show`, `memory add`, `memory doctor`, `run find-and-kick`): no signal, a documented exit code, and
 * every refusal one line. Needs a built dist/, as `npm test` makes.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { HISTORY_MAX } from '../../src/memory/entry.js';
import { EMPTY_FILE, lmdbFileProblem } from '../../src/memory/header-check.js';
import { openLmdbStore } from '../../src/memory/lmdb-store.js';
import { DATA_FILE } from '../../src/memory/store.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { fuzzCase } from './damage.js';

/** Fixed, so a failure reproduces: the message names the seed and the case. */
const SEED = 0x8d1a6e;
const CASES = 300;
/** Every SAMPLE-th fuzz case also goes through the CLI. */
const SAMPLE = 25;
const CHILD = fileURLToPath(new URL('./damage-child.ts', import.meta.url));
const EXIT_CODES = [0, 1, 2, 3];
const PAGE = 4096;

/** A real store of every shape: a two-level tree, freed pages, an entry on overflow pages. */
async function baseStore(): Promise<Buffer> {
  const dir = join(tempDir('quackd-fuzz-base-'), 'memory');
  // Built by the engine itself (one process, nothing to guard), for its batch transactions.
  const store = openLmdbStore(dir);
  const m = store.body('microduck:sim2d');
  m.batch((tx) => {
    for (let i = 0; i < 120; i += 1) tx.remember({ text: `filler note ${i} about the hallway ${'x'.repeat(i)}`, source: 'human' });
    for (let i = 0; i < 60; i += 1) tx.addEpisode({ text: `episode ${i}` });
  });
  const history = Array.from({ length: HISTORY_MAX }, (_, n) => ({ time: '2026-01-01T00:00:00.000Z', text: `${n} ${'z'.repeat(290)}`, source: 'human' as const }));
  m.batch((tx) => tx.remember({ text: 'a note with a long past', source: 'human' }, { history }));
  for (const e of m.entries().slice(0, 5)) m.forget(e.id);
  await store.close();
  return readFileSync(join(dir, DATA_FILE));
}

function isolatedEnv(home: string): NodeJS.ProcessEnv {
  return { ...process.env, NO_COLOR: '1', QUACKD_HOME: home, QUACKD_MEMORY_DIR: join(home, 'memory'), QUACKD_LOG_LEVEL: 'warn' };
}

interface ChildRun {
  readonly outcomes: Map<number, string>;
  readonly crashed?: { index: number; how: string };
}

/** Runs the child over cases [from, CASES); a crash ends the run and names the case it was on. */
function runChild(base: string, from: number, work: string, home: string): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, base, String(SEED), String(from), String(CASES), work], { stdio: ['ignore', 'pipe', 'pipe'], env: isolatedEnv(home) });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const outcomes = new Map<number, string>();
      let current = from;
      for (const line of out.split('\n')) {
        const start = /^start (\d+)$/.exec(line);
        if (start !== null) current = Number(start[1]);
        const done = /^done (\d+) (.*)$/.exec(line);
        if (done !== null) outcomes.set(Number(done[1]), done[2] ?? '');
      }
      if (code === 0 && signal === null) return resolve({ outcomes });
      resolve({ outcomes, crashed: { index: current, how: `${signal ?? `exit ${code}`} ${err.trim().split('\n').slice(-3).join(' | ')}` } });
    });
  });
}

/** A CLI result is no crash, a documented exit code, and a refusal in exactly one line. */
function assertCalm(r: CliResult, label: string): void {
  assert.equal(r.signal, null, `${label}: killed by ${r.signal}\n${r.stderr}`);
  assert.ok(EXIT_CODES.includes(r.code ?? -1), `${label}: exit ${r.code}\n${r.stderr}`);
  if (r.code !== 0 && r.stderr.trim() !== '') assert.equal(r.stderr.trim().split('\n').length, 1, `${label}: more than one line\n${r.stderr}`);
  assert.ok(!/\n\s+at /.test(r.stdout + r.stderr), `${label}: a stack trace\n${r.stdout}${r.stderr}`);
}

/** A memory dir holding `bytes` as its data file (or a directory in its place), in a fresh home. */
function homeWith(bytes: Buffer | 'directory'): { home: string; env: NodeJS.ProcessEnv } {
  const home = tempDir('quackd-fuzz-cli-');
  const dir = join(home, 'memory');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (bytes === 'directory') mkdirSync(join(dir, DATA_FILE));
  else writeFileSync(join(dir, DATA_FILE), bytes, { mode: 0o600 });
  return { home, env: isolatedEnv(home) };
}

async function throughCli(bytes: Buffer | 'directory', label: string, commands: readonly (readonly string[])[]): Promise<CliResult[]> {
  const out: CliResult[] = [];
  for (const args of commands) {
    // A fresh copy each time: `memory add` may write to a file the check let through.
    const { env } = homeWith(bytes);
    const r = await runCli(args, { env, timeoutMs: 30_000 });
    assertCalm(r, `${label}: quackd ${args.join(' ')}`);
    out.push(r);
  }
  return out;
}

const txnid = (b: Buffer, page: number) => b.readBigUInt64LE(page * PAGE + 24 + 128);

describe('damaged memory-store files (fuzz)', () => {
  it(`${CASES} seeded damaged copies (seed ${SEED}): the check refuses or lmdb-js opens, reads and writes, never a crash`, async (t) => {
    const base = await baseStore();
    const work = tempDir('quackd-fuzz-');
    const basePath = join(work, 'base.mdb');
    writeFileSync(basePath, base);
    assert.equal(lmdbFileProblem(basePath, { readOnly: true }), undefined, 'the undamaged store is refused');
    const home = tempDir('quackd-fuzz-home-');
    const crashes: string[] = [];
    const outcomes = new Map<number, string>();
    for (let from = 0; from < CASES; ) {
      const run = await runChild(basePath, from, join(work, 'cases'), home);
      for (const [i, o] of run.outcomes) outcomes.set(i, o);
      if (run.crashed === undefined) break;
      const { index, how } = run.crashed;
      // The base store is new each run (random ids), so the crashing file is kept to reproduce it.
      const kept = join(tmpdir(), `quackd-fuzz-crash-${SEED}-${index}.mdb`);
      writeFileSync(kept, fuzzCase(base, SEED, index).bytes);
      crashes.push(`seed ${SEED} case ${index} (${fuzzCase(base, SEED, index).what}): ${how}; the file is kept at ${kept}`);
      from = index + 1;
    }
    const refused = [...outcomes.values()].filter((o) => o.includes('"readOnly":"refused')).length;
    const opened = [...outcomes.values()].filter((o) => o.includes('"readOnly":"opened') && o.includes('"write":"opened')).length;
    t.diagnostic(`${outcomes.size} cases, ${refused} refused read-only, ${opened} opened, read and written, ${crashes.length} crashes`);
    assert.deepEqual(crashes, []);
    assert.equal(outcomes.size, CASES);
    // Both halves must be exercised: a check that refused every copy would leave lmdb-js unfuzzed
    // (and pass), one that refused none would leave the check untested.
    assert.ok(refused >= CASES / 10, `only ${refused} of ${CASES} copies refused by the header check`);
    assert.ok(opened >= CASES / 10, `only ${opened} of ${CASES} copies reached lmdb-js and were read and written`);
  });

  it('the damage from issue 8 and a sample of the fuzz: every command answers in one line, a run goes on without memory', async () => {
    const base = await baseStore();
    const newer = txnid(base, 1) > txnid(base, 0) ? 1 : 0;
    const named: { label: string; bytes: Buffer | 'directory' }[] = [
      { label: `newer meta page ${newer}: bytes 24-31 zeroed`, bytes: zeroed(base, newer * PAGE + 24, newer * PAGE + 32) },
      { label: 'page 0 zeroed', bytes: zeroed(base, 0, PAGE) },
      { label: 'page 1 zeroed', bytes: zeroed(base, PAGE, 2 * PAGE) },
      { label: 'truncated inside meta page 0', bytes: base.subarray(0, 100) },
      { label: 'the last page cut off', bytes: base.subarray(0, base.length - PAGE) },
      { label: 'a directory in place of the data file', bytes: 'directory' },
    ];
    for (const { label, bytes } of named) {
      const [show, add, doctor, run] = await throughCli(bytes, label, [['memory', 'show'], ['memory', 'add', 'one more note'], ['memory', 'doctor'], ['run', 'find-and-kick']]);
      assert.equal(show?.code, 3, `${label}: show`);
      assert.match(show?.stderr ?? '', /^quackd: memory store in .*: (the data file|the lock file)/, label);
      assert.equal(add?.code, 3, `${label}: add`);
      assert.equal(doctor?.code, 3, `${label}: doctor`);
      assert.equal(run?.code, 0, `${label}: run\n${run?.stderr}`);
      assert.match(run?.stdout.split('\n')[0] ?? '', /^memory: off for this run — the store in .* cannot be opened \(.+\)$/, label);
    }
    for (let i = 0; i < CASES; i += SAMPLE) {
      const c = fuzzCase(base, SEED, i);
      // An empty file: see the 0-byte test below (read-only opens need store.ts to pass readOnly).
      if (c.bytes.length === 0) continue;
      const label = `seed ${SEED} case ${i} (${c.what})`;
      const [, run] = await throughCli(c.bytes, label, [['memory', 'show'], ['run', 'find-and-kick']]);
      assert.equal(run?.code, 0, `${label}: run\n${run?.stderr}`);
    }
  });

  it('a 0-byte data file: a write open starts it afresh, doctor says so in one line', async () => {
    const empty = Buffer.alloc(0);
    assert.equal(lmdbFileProblem(join(homeWith(empty).home, 'memory', DATA_FILE)), undefined);
    assert.equal(lmdbFileProblem(join(homeWith(empty).home, 'memory', DATA_FILE), { readOnly: true }), EMPTY_FILE);
    const [add, run, doctor] = await throughCli(empty, '0-byte file', [['memory', 'add', 'a fresh start'], ['run', 'find-and-kick'], ['memory', 'doctor']]);
    assert.equal(add?.code, 0, add?.stderr);
    assert.equal(run?.code, 0, run?.stderr);
    assert.doesNotMatch(run?.stdout ?? '', /memory: off/);
    assert.equal(doctor?.code, 3);
    assert.match(doctor?.stdout ?? '', /the data file is empty \(its creation was cut short\); 'quackd memory add' starts it afresh/);
  });

  it('a 0-byte data file: memory show refuses in one line', async () => {
    const [show] = await throughCli(Buffer.alloc(0), '0-byte file', [['memory', 'show']]);
    assert.equal(show?.code, 3);
    assert.match(show?.stderr ?? '', /^quackd: memory store in .*: the data file is empty \(its creation was cut short\); 'quackd memory add' starts it afresh/);
  });
});

function zeroed(base: Buffer, from: number, to: number): Buffer {
  const b = Buffer.from(base);
  b.fill(0, from, to);
  return b;
}

