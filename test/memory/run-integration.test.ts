/**
 * Memory inside a run: remember through the pilot loop (an LLM call, not a step), the prompt
 * block, episodes after non-dry runs only, --no-memory leaving the store byte-for-byte alone, a
 * store that cannot be opened, and secret notes kept out of the transcript.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openRunMemory } from '../../src/run/open-run-memory.js';
import { startRun } from '../../src/run/start-run.js';
import { noTtyGate } from '../../src/safety/gate.js';
import { readTranscript } from '../../src/transcript/reader.js';
import { quackd } from '../helpers/quackd.js';
import { duck } from '../helpers/ducks.js';
import { harness } from '../helpers/run-harness.js';
import { scripted } from '../helpers/scripted-provider.js';
import { needsRoot } from '../helpers/skip.js';
import { tempDir } from '../helpers/tmp.js';

async function memoryIn(dir: string) {
  const opened = await openRunMemory({ body: 'microduck:sim2d', dir, duck: 'test' });
  assert.ok(opened.memory, opened.notice);
  return opened.memory;
}

function digest(dir: string): string {
  const h = createHash('sha256');
  for (const f of readdirSync(dir).sort()) h.update(f).update(readFileSync(join(dir, f)));
  return h.digest('hex');
}

describe('remember in the pilot loop', () => {
  it('counts as an LLM call but not a step, and lands in the next observation and the transcript', async () => {
    const memory = await memoryIn(join(tempDir(), 'memory'));
    const h = harness(duck('verbs: [quack]'), { memory });
    const provider = scripted([
      [{ name: 'remember', args: { text: 'the ball hides behind the sofa', tags: ['place'] } }],
      [{ name: 'quack', args: {} }],
      [{ name: 'declare_success', args: { reason: 'done' } }],
    ]);
    const result = await h.fly(provider);
    assert.equal(result.outcome.status, 'success');
    assert.equal(h.budgets.stepsUsed, 1);
    assert.equal(h.budgets.llmCallsUsed, 3);
    assert.deepEqual(provider.requests[0]!.tools.map((t) => t.name), ['quack', 'declare_success', 'declare_failure', 'remember', 'recall']);
    assert.match(provider.requests[0]!.system, /What you remember from earlier runs on this robot/);
    const obs = provider.requests[1]!.messages.at(-1);
    assert.match(obs?.role === 'user' ? obs.content : '', /^last verb remember: ok — remembered for future runs: the ball hides behind the sofa/m);
    assert.ok(h.events.some((e) => e.type === 'memory'));
    await memory.close();
  });

  it('answers "memory busy" when another process holds the store, and the run goes on', async () => {
    const dir = join(tempDir(), 'memory');
    const memory = await memoryIn(dir);
    // Another quackd process holds the store (a large import's commit) for longer than a remember may wait.
    const holder = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./memory-child.ts', import.meta.url)), 'hold', dir, '3500'], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    const h = harness(duck('verbs: [quack]'), { memory });
    const provider = scripted([
      [{ name: 'remember', args: { text: 'the rug by the door is slippery' } }],
      [{ name: 'quack', args: {} }],
      [{ name: 'declare_success', args: { reason: 'done' } }],
    ]);
    const result = await h.fly(provider);
    assert.equal(result.outcome.status, 'success');
    const obs = provider.requests[1]!.messages.at(-1);
    assert.match(obs?.role === 'user' ? obs.content : '', /last verb remember: failed — not saved: memory busy: another quackd process has held the memory store for \d+\.\d s; try again later/);
    await new Promise((resolve) => holder.once('close', resolve));
    // The abandoned note was not written once the holder let go; the episode still was.
    assert.equal((await memory.writeEpisode({ duck: 'test', outcome: 'success', reason: 'done', steps: 1, results: [], runId: 'r1' }))?.detail['saved'], true);
    const show = await quackd(['memory', 'show', '--memory-dir', dir]);
    assert.doesNotMatch(show.stdout, /slippery/);
    assert.match(show.stdout, /test: success/);
    await memory.close();
  });

  it('is refused when memory is off, and nothing reaches the body', async () => {
    const h = harness(duck('verbs: [quack, remember]'));
    const ex = await h.executor.execute({ id: '1', name: 'remember', args: { text: 'x' } });
    assert.equal(ex.kind, 'refused');
    assert.equal(h.body.performed.length, 0);
  });

  it('keeps a secret the model tried to remember out of the transcript', async () => {
    const dir = tempDir();
    const memory = await memoryIn(join(dir, 'memory'));
    const secret = 'sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX0123456789';
    const provider = scripted([[{ name: 'remember', args: { text: `the wifi key is ${secret}` } }], [{ name: 'declare_failure', args: { reason: 'stop' } }]]);
    const report = await startRun({ duck: duck('verbs: [quack]'), robot: 'microduck:sim2d', seed: 1, provider, gate: noTtyGate, dryRun: false, memory, transcriptsDir: join(dir, 't'), signal: new AbortController().signal });
    await memory.close();
    const text = readFileSync(report.transcriptPath, 'utf8');
    assert.ok(!text.includes(secret));
    assert.ok(!text.includes('ABCDEFGHIJKLMNOPQRSTUVWX'));
    assert.match(text, /withheld: it looks like/);
  });

  it('withholds secrets in tags and topic too, and keeps the episode when only the reason looks secret', async () => {
    const dir = tempDir();
    const memory = await memoryIn(join(dir, 'memory'));
    const provider = scripted([
      [{ name: 'remember', args: { text: 'the charger is under the desk', tags: ['password=hunter2'], topic: 'token=abcdefghij' } }],
      [{ name: 'declare_failure', args: { reason: 'api_key=sk-live-0123456789abcdefghij' } }],
    ]);
    const report = await startRun({ duck: duck('verbs: [quack]'), robot: 'microduck:sim2d', seed: 1, provider, gate: noTtyGate, dryRun: false, memory, transcriptsDir: join(dir, 't'), signal: new AbortController().signal });
    await memory.close();
    const text = readFileSync(report.transcriptPath, 'utf8');
    assert.ok(!text.includes('hunter2'));
    assert.ok(!text.includes('abcdefghij'));
    const episode = readTranscript(report.transcriptPath).lines.find((l) => l.type === 'memory' && l.action === 'episode');
    assert.ok(episode?.type === 'memory' && episode.detail['saved'] === true, JSON.stringify(episode));
    assert.match(String(episode.detail['text']), /reason withheld/);
  });
});

describe('memory in quackd run (CLI)', () => {
  it('tells the person what the pilot was told, and writes an episode after each non-dry run', async () => {
    const env = { QUACKD_HOME: tempDir('quackd-home-') };
    const first = await quackd(['run', 'find-and-kick'], { env });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout.split('\n')[0]!, /^memory: nothing yet \(microduck:sim2d\)$/);
    const second = await quackd(['run', 'find-and-kick', '--seed', '3'], { env });
    assert.match(second.stdout.split('\n')[0]!, /^memory: 0 notes, 1 earlier run \(microduck:sim2d\)$/);
    const dry = await quackd(['run', 'find-and-kick', '--dry-run'], { env });
    assert.equal(dry.code, 0);
    const third = await quackd(['run', 'hello-world'], { env });
    assert.match(third.stdout.split('\n')[0]!, /^memory: 0 notes, 2 earlier runs/);
    // The transcript records the episode as a memory event, so provenance shows what was saved.
    const ids = readdirSync(join(env.QUACKD_HOME, 'transcripts')).sort();
    const { lines } = readTranscript(join(env.QUACKD_HOME, 'transcripts', ids[0]!));
    assert.ok(lines.some((l) => l.type === 'memory'));
  });

  it('--no-memory reads and writes nothing: the store stays byte-for-byte the same', async () => {
    const env = { QUACKD_HOME: tempDir('quackd-home-') };
    assert.equal((await quackd(['memory', 'add', 'the charger is under the desk'], { env })).code, 0);
    const dir = join(env.QUACKD_HOME, 'memory');
    const before = digest(dir);
    const r = await quackd(['run', 'find-and-kick', '--no-memory'], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout.split('\n')[0]!, /^memory: off for this run \(--no-memory\)$/);
    assert.equal(digest(dir), before);
  });

  it('a full disk turns memory off for the run instead of crashing it', { skip: needsRoot() }, async () => {
    const disk = tempDir();
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', disk]);
    try {
      writeFileSync(join(disk, 'filler'), Buffer.alloc(60 * 1024));
      const r = await quackd(['run', 'hello-world', '--memory-dir', join(disk, 'memory')], { env: { QUACKD_HOME: tempDir('quackd-home-') } });
      assert.equal(r.code, 0, `${r.signal ?? ''} ${r.stdout}${r.stderr}`);
      assert.match(r.stdout.split('\n')[0]!, /^memory: off for this run — .*the disk holding .* is full/);
    } finally {
      execFileSync('umount', [disk]);
    }
  });

  it('a store that cannot be opened turns memory off for the run, in one line, and the run succeeds', async () => {
    const env = { QUACKD_HOME: tempDir('quackd-home-') };
    const blocked = join(env.QUACKD_HOME, 'not-a-dir');
    writeFileSync(blocked, 'a file where the memory directory should be');
    const r = await quackd(['run', 'hello-world', '--memory-dir', blocked], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout.split('\n')[0]!, /^memory: off for this run — /);
    assert.equal(r.stdout.split('\n').filter((l) => l.startsWith('memory:')).length, 1);
  });
});
