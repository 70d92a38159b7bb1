import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { findDuck } from '../../src/ducks/find.js';
import { createFakeProvider } from '../../src/pilot/providers/fake.js';
import { startRun } from '../../src/run/start-run.js';
import { noTtyGate } from '../../src/safety/gate.js';
import { registerSecret } from '../../src/secrets.js';
import { readTranscript, resolveTranscriptId, listTranscriptIds } from '../../src/transcript/reader.js';
import { TranscriptWriter } from '../../src/transcript/writer.js';
import { tempDir } from '../helpers/tmp.js';
import { duck } from '../helpers/ducks.js';
import { scripted } from '../helpers/scripted-provider.js';
import { needsRoot } from '../helpers/skip.js';

describe('transcripts', () => {
  it('hold every event of a run, each with a time and the run id, in a 0600 file', async () => {
    const dir = tempDir();
    const report = await startRun({ duck: findDuck('find-and-kick'), robot: 'microduck:sim2d', seed: 7, provider: createFakeProvider(), gate: noTtyGate, dryRun: false, transcriptsDir: dir, signal: new AbortController().signal });
    assert.equal(report.outcome.status, 'success');
    const { lines, skipped } = readTranscript(report.transcriptPath);
    assert.equal(skipped, 0);
    assert.equal(statSync(report.transcriptPath).mode & 0o777, 0o600);
    for (const l of lines) {
      assert.equal(l.run, report.runId);
      assert.ok(!Number.isNaN(Date.parse(l.t)));
    }
    const types = lines.map((l) => l.type);
    assert.equal(types[0], 'start');
    assert.equal(types.at(-1), 'end');
    for (const t of ['prompt', 'response', 'tool_call', 'verb_result', 'frame']) assert.ok(types.includes(t as never), `has ${t}`);
    assert.ok(lines.some((l) => l.type === 'prompt' && l.role === 'system' && l.content.includes('# Verbs you may call')));
    // One verb_result and one frame per step; the end line agrees.
    const end = lines.at(-1)!;
    assert.ok(end.type === 'end');
    assert.equal(lines.filter((l) => l.type === 'verb_result').length, end.steps);
    assert.equal(lines.filter((l) => l.type === 'frame').length, end.steps);
    assert.equal(lines.filter((l) => l.type === 'response').length, end.llmCalls);
  });

  it('record gate decisions, refusals and budget events', async () => {
    const dir = tempDir();
    const d = duck('verbs: [quack, turn]\nconfirm: [turn]\nbudgets: { llm_calls: 3 }');
    const provider = scripted([[{ name: 'turn', args: { degrees: 5 } }], [{ name: 'kick', args: { foot: 'left' } }], [{ name: 'quack', args: {} }]]);
    const report = await startRun({ duck: d, robot: 'microduck:sim2d', seed: 1, provider, gate: noTtyGate, dryRun: false, transcriptsDir: dir, signal: new AbortController().signal });
    const { lines } = readTranscript(report.transcriptPath);
    assert.ok(lines.some((l) => l.type === 'gate' && l.verb === 'turn' && !l.allowed && l.how === 'no-tty'));
    assert.ok(lines.some((l) => l.type === 'refused' && l.name === 'kick'));
    assert.ok(lines.some((l) => l.type === 'budget' && l.budget === 'llm_calls'));
    assert.ok(lines.some((l) => l.type === 'response' && l.usage?.inputTokens === 10));
    const end = lines.at(-1)!;
    assert.ok(end.type === 'end' && end.outcome === 'budget' && end.usage?.inputTokens === 30);
  });

  it('end with the reason when the run is interrupted (Ctrl-C) mid-call', async () => {
    const dir = tempDir();
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    const report = await startRun({ duck: duck('verbs: [quack]'), robot: 'microduck:sim2d', seed: 1, provider: scripted([[{ name: 'quack', args: {} }], 'hang']), gate: noTtyGate, dryRun: false, transcriptsDir: dir, signal: abort.signal });
    assert.deepEqual(report.outcome, { status: 'interrupted', reason: 'stopped by Ctrl-C' });
    const { lines } = readTranscript(report.transcriptPath);
    const end = lines.at(-1)!;
    assert.ok(end.type === 'end' && end.outcome === 'interrupted' && end.steps === 1);
    // The body was told to stop before the transcript closed.
    assert.ok(lines.some((l) => l.type === 'body_stop' && l.ok));
  });

  it('never hold an API key, even one the model echoes back', async () => {
    const dir = tempDir();
    const key = 'sk-test-0123456789abcdefSECRET';
    registerSecret(key);
    const provider = scripted([[{ name: 'declare_failure', args: { reason: `my key is ${key}` } }]]);
    const report = await startRun({ duck: duck('verbs: [quack]'), robot: 'microduck:sim2d', seed: 1, provider, gate: noTtyGate, dryRun: false, transcriptsDir: dir, signal: new AbortController().signal });
    const text = readTranscript(report.transcriptPath).lines.map((l) => JSON.stringify(l)).join('\n');
    assert.ok(!text.includes(key));
    assert.ok(text.includes('[redacted]'));
  });

  it('get a new name for a second run in the same second, and resolve by prefix or last', async () => {
    const dir = tempDir();
    const a = TranscriptWriter.create(dir, '20261130-010203-x');
    const b = TranscriptWriter.create(dir, '20261130-010203-x');
    await a.close();
    await b.close();
    assert.deepEqual(readdirSync(dir).sort(), ['20261130-010203-x-2.jsonl', '20261130-010203-x.jsonl']);
    // Newest first: the second run of that second, then the first.
    assert.deepEqual(listTranscriptIds(dir), ['20261130-010203-x-2', '20261130-010203-x']);
    assert.equal(resolveTranscriptId(dir, 'last'), '20261130-010203-x-2');
    assert.throws(() => resolveTranscriptId(dir, '2026'), /ambiguous/);
    assert.equal(resolveTranscriptId(dir, '20261130-010203-x-2'), '20261130-010203-x-2');
    assert.equal(resolveTranscriptId(dir, '20261130-010203-x'), '20261130-010203-x');
  });

  it('name every run of a busy second: 150 runs of one duck, as a fast simulator starts them', async () => {
    const dir = tempDir();
    for (let i = 0; i < 150; i++) await TranscriptWriter.create(dir, '20261130-010203-x').close();
    assert.equal(readdirSync(dir).length, 150);
    assert.equal(resolveTranscriptId(dir, 'last'), '20261130-010203-x-150');
  });

  it('list newest first across seconds and days, whatever the duck is called', async () => {
    const dir = tempDir();
    for (const id of ['20261130-235959-zebra', '20261201-000001-apple', '20261130-120000-mango']) await TranscriptWriter.create(dir, id).close();
    assert.deepEqual(listTranscriptIds(dir), ['20261201-000001-apple', '20261130-235959-zebra', '20261130-120000-mango']);
    assert.equal(resolveTranscriptId(dir, 'last'), '20261201-000001-apple');
  });

  it('within one second, the run that started last is last: ten runs of a duck, two ducks', async () => {
    const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 30));
    const dir = tempDir();
    for (let i = 0; i < 11; i += 1) {
      await TranscriptWriter.create(dir, '20261130-010203-x').close();
      // Creation order is what "last" means. Linux stamps a file with the kernel's coarse clock
      // (one tick: 4 ms here, measured; up to 10 ms), which lags a tick or more on a loaded
      // machine: two runs started within one tick cannot be told apart, so these start 30 ms apart.
      // (5 ms failed once in CI under load: apple and zebra got the same stamp.)
      await tick();
    }
    assert.equal(resolveTranscriptId(dir, 'last'), '20261130-010203-x-11');
    assert.deepEqual(listTranscriptIds(dir).slice(0, 3), ['20261130-010203-x-11', '20261130-010203-x-10', '20261130-010203-x-9']);
    await TranscriptWriter.create(dir, '20261130-010204-zebra').close();
    await tick();
    await TranscriptWriter.create(dir, '20261130-010204-apple').close();
    assert.equal(resolveTranscriptId(dir, 'last'), '20261130-010204-apple');
  });

  it('skip a torn last line instead of failing', async () => {
    const dir = tempDir();
    const w = TranscriptWriter.create(dir, 'torn');
    w.write({ type: 'error', message: 'one' });
    await w.close();
    appendFileSync(join(dir, 'torn.jsonl'), '{"t":"2026-');
    const { lines, skipped } = readTranscript(join(dir, 'torn.jsonl'));
    assert.equal(lines.length, 1);
    assert.equal(skipped, 1);
  });
});

describe('transcript writes off the event loop', () => {
  it('keep every line in order across many batches', async () => {
    const dir = tempDir();
    const w = TranscriptWriter.create(dir, 'many');
    for (let i = 0; i < 3000; i++) {
      assert.equal(w.write({ type: 'error', message: `line ${i}` }), true);
      if (i % 250 === 0) await w.flush();
      else if (i % 7 === 0) await new Promise((r) => setImmediate(r));
    }
    await w.close();
    assert.equal(w.write({ type: 'error', message: 'after close' }), false);
    const { lines, skipped } = readTranscript(join(dir, 'many.jsonl'));
    assert.equal(skipped, 0);
    assert.deepEqual(lines.map((l) => (l.type === 'error' ? l.message : l.type)), Array.from({ length: 3000 }, (_, i) => `line ${i}`));
  });

  const CHILD = fileURLToPath(new URL('./exit-child.ts', import.meta.url));
  for (const [how, code] of [['exit', 143], ['throw', 1]] as const) {
    it(`lose no queued line when the process ends at once (${how})`, () => {
      const dir = tempDir();
      const r = spawnSync(process.execPath, ['--import', 'tsx', CHILD, dir, '2000', how], { encoding: 'utf8' });
      assert.equal(r.status, code, r.stderr);
      const { lines, skipped } = readTranscript(join(dir, 'exit.jsonl'));
      assert.equal(skipped, 0);
      assert.deepEqual(lines.map((l) => (l.type === 'error' ? l.message : l.type)), Array.from({ length: 2000 }, (_, i) => `line ${i}`));
      assert.equal(statSync(join(dir, 'exit.jsonl')).mode & 0o777, 0o600);
    });
  }
});

describe('a transcript that can no longer be written', () => {
  // A real full disk: a 16 KiB tmpfs (mounting needs root, which CI has: there it never skips).
  it('stops the run cleanly with the reason instead of crashing', { skip: needsRoot() }, async () => {
    const dir = tempDir();
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', dir]);
    try {
      writeFileSync(join(dir, 'filler'), Buffer.alloc(6 * 1024));
      const report = await startRun({ duck: findDuck('find-and-kick'), robot: 'microduck:sim2d', seed: 1, provider: createFakeProvider(), gate: noTtyGate, dryRun: false, transcriptsDir: join(dir, 't'), signal: new AbortController().signal });
      assert.equal(report.outcome.status, 'error');
      assert.match(report.outcome.reason, /^transcript .* cannot be written \(ENOSPC\); the run was stopped$/);
      assert.ok(report.steps < 20, `the run went on for ${report.steps} steps`);
    } finally {
      execFileSync('umount', [dir]);
    }
  });
});
