/**
 * Several processes on one store, as users run them: concurrent writers and readers lose and
 * duplicate nothing, a killed writer loses no ack, and the open/commit race of the LMDB that
 * lmdb-js bundles (docs/lmdb-open-txnid-race.md) is reproduced on the bare engine and shown closed
 * by the store guard. The race is made certain, not waited for: an LD_PRELOAD shim (built here with
 * gcc) holds a process inside mmap of the data file, the open's window, until the test says go.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { lmdbFileProblem } from '../../src/memory/header-check.js';
import { DATA_FILE, MemoryBusy, openMemoryStore } from '../../src/memory/store.js';
import { childEnv, runCli, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const CHILD = fileURLToPath(new URL('./memory-child.ts', import.meta.url));
const SHIM_SOURCE = fileURLToPath(new URL('./shim/mmap-pause.c', import.meta.url));

/** A memory child, its stdout read line by line. */
class Child {
  readonly lines: string[] = [];
  readonly done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  private buf = '';
  private stderr = '';
  constructor(
    readonly proc: ChildProcess,
    private readonly onLine?: (child: Child) => void,
  ) {
    proc.stdout?.setEncoding('utf8').on('data', (d: string) => {
      const parts = (this.buf + d).split('\n');
      this.buf = parts.pop() ?? '';
      for (const l of parts) {
        this.lines.push(l);
        this.onLine?.(this);
      }
    });
    proc.stderr?.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.done = new Promise((resolve, reject) => {
      proc.on('error', reject);
      proc.on('close', (code, signal) => resolve({ code, signal, stderr: this.stderr }));
    });
  }

  get acks(): string[] {
    return this.lines.filter((l) => l.startsWith('ack ')).map((l) => l.slice(4));
  }

  async next(prefix: string, from = 0): Promise<string> {
    for (let i = 0; i < 2000; i += 1) {
      const hit = this.lines.slice(from).find((l) => l.startsWith(prefix));
      if (hit !== undefined) return hit;
      if (this.proc.exitCode !== null) break;
      await sleep(5);
    }
    throw new Error(`no "${prefix}" line from the child (stderr: ${this.stderr})`);
  }

  /** Sends a command and waits for the answer it starts with. */
  async ask(command: string, answer: string): Promise<string> {
    const from = this.lines.length;
    this.proc.stdin?.write(`${command}\n`);
    return this.next(answer, from);
  }
}

function child(args: readonly string[], env: NodeJS.ProcessEnv = {}, onLine?: (c: Child) => void): Child {
  return new Child(spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: childEnv(env) }), onLine);
}

/** Builds the mmap pause shim; its environment for a child that should pause in its open. */
function shim(): { env: (dir: string) => NodeJS.ProcessEnv; paused: (dir: string) => boolean; go: (dir: string) => void } {
  const lib = join(tempDir('quackd-shim-'), 'mmap-pause.so');
  execFileSync('gcc', ['-shared', '-fPIC', '-o', lib, SHIM_SOURCE, '-ldl']);
  return {
    env: (dir) => ({ LD_PRELOAD: lib, QUACKD_SHIM_DIR: dir }),
    paused: (dir) => readdirSync(dir).some((f) => f.startsWith('paused-')),
    go: (dir) => writeFileSync(join(dir, 'go'), ''),
  };
}

async function until(what: string, test: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !test(); i += 1) await sleep(5);
  assert.ok(test(), `timed out waiting for: ${what}`);
}

const notesOf = (line: string) => line.slice('entries '.length).split('|');

describe('an open that overlaps another process commit (the lmdb-js open race)', () => {
  it('on the bare engine (no guard) loses an acknowledged write: the defect is real', async () => {
    const dir = join(tempDir('quackd-race-'), 'memory');
    const pause = shim();
    const shimDir = tempDir('quackd-shim-state-');
    const holder = child(['serve', dir, 'engine']);
    try {
      await holder.next('ready');
      await holder.ask('w note one', 'ack');
      // A reader opens and is held after reading the meta pages, before it writes the id back.
      const reader = child(['show', dir, 'engine'], pause.env(shimDir));
      await until('the reader to pause inside its open', () => pause.paused(shimDir));
      // Meanwhile another process commits, and says so.
      const writer = child(['once', dir, 'note two', 'engine']);
      assert.equal((await writer.done).code, 0);
      assert.equal(writer.acks.length, 1);
      pause.go(shimDir);
      assert.equal((await reader.done).code, 0);
      // The holder's next write builds on the snapshot the reader put back.
      await holder.ask('w note three', 'ack');
      const texts = notesOf(await holder.ask('r', 'entries'));
      assert.ok(texts.includes('note three'));
      assert.ok(
        !texts.includes('note two'),
        'the acknowledged "note two" survived on the bare engine: the shim no longer reproduces the lmdb-js defect (fixed upstream?) — see docs/lmdb-open-txnid-race.md',
      );
    } finally {
      holder.proc.stdin?.end('q\n');
      await holder.done;
    }
  });

  it('through quackd (store guard): the writer waits for the open, and nothing is lost', async () => {
    const home = tempDir('quackd-race-home-');
    const dir = join(home, 'memory');
    const pause = shim();
    const shimDir = tempDir('quackd-shim-state-');
    const holder = child(['serve', dir, 'store']);
    try {
      await holder.next('ready');
      await holder.ask('w note one', 'ack');
      const env = { QUACKD_HOME: home };
      const reader = runCli(['memory', 'show'], { env: { ...env, ...pause.env(shimDir) } });
      await until('`quackd memory show` to pause inside its open', () => pause.paused(shimDir));
      let added: CliResult | undefined;
      const adding = runCli(['memory', 'add', 'note two'], { env }).then((r) => (added = r));
      // The open holds the guard: `memory add` cannot commit until it is done.
      await sleep(600);
      assert.equal(added, undefined, 'memory add committed while another process was inside its open');
      pause.go(shimDir);
      const [shown, add] = await Promise.all([reader, adding]);
      assert.equal(shown.code, 0, shown.stderr);
      assert.equal(add.code, 0, add.stderr);
      await holder.ask('w note three', 'ack');
      assert.deepEqual(notesOf(await holder.ask('r', 'entries')).sort(), ['note one', 'note three', 'note two']);
      const after = await runCli(['memory', 'show'], { env });
      for (const t of ['note one', 'note two', 'note three']) assert.match(after.stdout, new RegExp(t));
    } finally {
      holder.proc.stdin?.end('q\n');
      await holder.done;
    }
  });
});

describe('many processes at once', () => {
  it('two long-lived writers: nothing acknowledged lost, nothing duplicated', async () => {
    const dir = join(tempDir('quackd-mem-'), 'memory');
    const [a, b] = [child(['write', dir, 'alpha', '120', '20']), child(['write', dir, 'beta', '120', '20'])];
    const [ra, rb] = await Promise.all([a.done, b.done]);
    assert.equal(ra.code, 0, ra.stderr);
    assert.equal(rb.code, 0, rb.stderr);
    const store = await openMemoryStore(dir, { readOnly: true });
    try {
      const entries = store.body('microduck:sim2d').entries();
      const ids = new Set(entries.map((e) => e.id));
      for (const id of [...a.acks, ...b.acks]) assert.ok(ids.has(id), `acknowledged ${id} is missing`);
      const texts = entries.map((e) => e.text);
      assert.equal(new Set(texts).size, texts.length, 'a note was duplicated');
      assert.equal(entries.length, 120 + 120 + 20);
      assert.deepEqual(store.invalid(), []);
    } finally {
      await store.close();
    }
  });

  it('twelve `quackd memory add` with readers alongside, on a fresh and then an existing store: 0 lost', async () => {
    const home = tempDir('quackd-stress-');
    const env = { QUACKD_HOME: home };
    let expected = 0;
    for (const round of ['fresh', 'existing', 'existing again']) {
      const writers = Array.from({ length: 12 }, (_, i) => runCli(['memory', 'add', `note ${i} of the ${round} store`], { env, timeoutMs: 60_000 }));
      // Readers open and close while the writers commit: they must not crash, fail or disturb a commit.
      const readers = Array.from({ length: 4 }, () => runCli(['memory', 'show'], { env, timeoutMs: 60_000 }));
      const results = await Promise.all([...writers, ...readers]);
      for (const r of results) assert.equal(r.code, 0, r.stderr);
      expected += 12;
      const store = await openMemoryStore(join(home, 'memory'), { readOnly: true });
      try {
        const texts = new Set(store.body('microduck:sim2d').entries().map((e) => e.text));
        for (let i = 0; i < 12; i += 1) assert.ok(texts.has(`note ${i} of the ${round} store`), `round ${round}: acknowledged note ${i} is missing`);
        assert.equal(texts.size, expected);
      } finally {
        await store.close();
      }
    }
  });

  it('a writer killed with SIGKILL mid-stream leaves a store that opens with every acknowledged entry', async () => {
    const dir = join(tempDir('quackd-mem-'), 'memory');
    let killed = false;
    const doomed = child(['write', dir, 'doomed', '350'], {}, (c) => {
      if (c.acks.length >= 40 && !killed) {
        killed = true;
        c.proc.kill('SIGKILL');
      }
    });
    const r = await doomed.done;
    assert.equal(r.signal, 'SIGKILL');
    assert.ok(doomed.acks.length >= 40);
    assert.equal(lmdbFileProblem(join(dir, DATA_FILE)), undefined);
    // The guard died with its holder: the next open does not wait for it.
    const store = await openMemoryStore(dir, { openWaitMs: 2_000 });
    try {
      const ids = new Set(store.body('microduck:sim2d').entries().map((e) => e.id));
      for (const id of doomed.acks) assert.ok(ids.has(id), `acknowledged ${id} is missing`);
      assert.deepEqual(store.invalid(), []);
      assert.equal((await store.body('microduck:sim2d').remember({ text: 'after the crash', source: 'human' })).action, 'added');
    } finally {
      await store.close();
    }
  });
});

describe('a write while another process holds the store', () => {
  it('is "memory busy" after its bound, never freezes the event loop, and is not written later', async () => {
    const dir = join(tempDir('quackd-mem-'), 'memory');
    const store = await openMemoryStore(dir);
    const body = store.body('microduck:sim2d');
    try {
      await body.remember({ text: 'before the long hold', source: 'human' });
      const holder = child(['hold', dir, '2500']);
      await holder.next('held');
      let ticks = 0;
      const ticker = setInterval(() => (ticks += 1), 10);
      const started = Date.now();
      await assert.rejects(body.remember({ text: 'written while held', source: 'model' }, { waitMs: 400 }), MemoryBusy);
      clearInterval(ticker);
      assert.ok(Date.now() - started < 2000, 'the write waited for the holder instead of its own bound');
      // The main thread ran all along (a serial link's heartbeats would have gone on).
      assert.ok(ticks >= 5, `the event loop was blocked while the write waited (${ticks} ticks)`);
      assert.equal((await holder.done).code, 0);
      // Once the holder lets go, the abandoned write stays abandoned and a new one goes through.
      assert.equal((await body.remember({ text: 'after the hold', source: 'human' })).action, 'added');
      assert.deepEqual(body.entries().map((e) => e.text), ['after the hold', 'before the long hold']);
    } finally {
      await store.close();
    }
  });

  it('a process that holds the guard and dies releases it at once', async () => {
    const dir = join(tempDir('quackd-mem-'), 'memory');
    await (await openMemoryStore(dir)).close();
    const holder = child(['hold', dir, '60000']);
    await holder.next('held');
    holder.proc.kill('SIGKILL');
    await holder.done;
    const store = await openMemoryStore(dir, { openWaitMs: 500 });
    try {
      assert.equal((await store.body('microduck:sim2d').remember({ text: 'the holder is gone', source: 'human' }, { waitMs: 500 })).action, 'added');
    } finally {
      await store.close();
    }
    assert.ok(existsSync(join(dir, DATA_FILE)));
  });
});
