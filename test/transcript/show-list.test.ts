/**
 * `quackd transcript show` and `list` as a user runs them (the built CLI): show streams a run line
 * by line and says when a run never ended or its file is empty, list reads each run's first and
 * last lines only, and an id as typed is refused when empty and echoed escaped.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const T = '2026-12-05T12:00:00.000Z';

/** A transcripts folder in a fresh home, and a way to write one run's lines into it. */
function transcripts(): { home: string; line: (id: string, o: object) => string; path: (id: string) => string } {
  const home = tempDir('quackd-show-');
  mkdirSync(join(home, 'transcripts'));
  return {
    home,
    line: (id, o) => `${JSON.stringify({ t: T, run: id, ...o })}\n`,
    path: (id) => join(home, 'transcripts', `${id}.jsonl`),
  };
}

const START = { type: 'start', duck: 'big', body: 'microduck:sim2d', robot: 'den', provider: 'fake', model: 'scripted', dryRun: false, seed: 1, budgets: {}, verbs: ['quack'], confirm: [], quackd: '0', node: 'v22' };
const END = { type: 'end', outcome: 'success', reason: 'quacked at last', steps: 3, llmCalls: 3, seconds: 1 };

describe('quackd transcript show and list', () => {
  it('list reads a run by its two ends: a 600 MB transcript, too long to read whole, lists with its outcome', async () => {
    const { home, line, path } = transcripts();
    const id = '20261205-120000-big';
    writeFileSync(path(id), line(id, START));
    // A sparse middle: no disk used, and longer than the longest string V8 makes (512 MB), so a
    // reader of the whole file fails on it.
    truncateSync(path(id), 600_000_000);
    appendFileSync(path(id), `\n${line(id, END)}`);
    const r = await runCli(['transcript', 'list'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^${id} +success +den +quacked at last$`, 'm'));
  });

  it('show streams every record in order, a torn line skipped and counted', async () => {
    const { home, line, path } = transcripts();
    const id = '20261205-120000-steps';
    const steps = Array.from({ length: 3000 }, (_, i) => line(id, { type: 'verb_result', step: i + 1, verb: 'quack', label: 'quack', ok: true, summary: `quack ${i + 1}`, invented: false }));
    writeFileSync(path(id), [line(id, START), ...steps.slice(0, 1500), '{"t":"2026-\n', ...steps.slice(1500), line(id, END)].join(''));
    const r = await runCli(['transcript', 'show', id], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 0, r.stderr);
    const shown = r.stdout.split('\n').flatMap((l) => /step (\d+) {2}quack: ok — quack (\d+)$/.exec(l)?.slice(1, 2) ?? []).map(Number);
    assert.deepEqual(shown, Array.from({ length: 3000 }, (_, i) => i + 1));
    assert.match(r.stdout.trim().split('\n').at(-1) ?? '', /end {4}success — quacked at last · 3 steps, 3 calls, 1 s$/);
    assert.equal(r.stderr, `quackd: 1 line skipped in ${id}: not transcript records\n`);
    const json = await runCli(['transcript', 'show', id, '--json'], { env: { QUACKD_HOME: home } });
    assert.equal(json.stdout.trim().split('\n').length, 3002);
  });

  it('show of a run without an end line ends saying so, as list calls it: unfinished, never ended or still going', async () => {
    const { home, line, path } = transcripts();
    const env = { QUACKD_HOME: home };
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const killed = '20261205-120000-killed';
    const going = '20261205-120001-going';
    writeFileSync(path(killed), line(killed, { ...START, pid: dead }));
    writeFileSync(path(going), line(going, { ...START, pid: process.pid }));
    const list = await runCli(['transcript', 'list'], { env });
    assert.match(list.stdout, new RegExp(`^${killed} +unfinished +den`, 'm'));
    const r = await runCli(['transcript', 'show', killed], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim().split('\n').at(-1), `FAIL unfinished — the run never ended: its process ${dead} is gone · transcript ${killed}`);
    const json = await runCli(['transcript', 'show', killed, '--json'], { env });
    assert.equal(json.stdout.trim().split('\n').length, 1);
    assert.equal(json.stderr, `quackd: ${killed}: unfinished — the run never ended: its process ${dead} is gone\n`);
    const live = await runCli(['transcript', 'show', going], { env });
    assert.equal(live.stdout.trim().split('\n').at(-1), `… unfinished — still going (its process ${process.pid} runs) · transcript ${going}`);
  });

  it('show of an empty transcript says it is empty, exit 1', async () => {
    const { home, path } = transcripts();
    writeFileSync(path('20261205-120000-empty'), '');
    const r = await runCli(['transcript', 'show', 'last'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, 'quackd: transcript 20261205-120000-empty is empty: its run wrote nothing (stopped as it began?)\n');
  });

  it('an empty run id is a usage error, not a prefix of every run', async () => {
    const { home, line, path } = transcripts();
    const env = { QUACKD_HOME: home };
    for (const id of ['20261205-120000-a', '20261205-120001-b']) writeFileSync(path(id), line(id, START) + line(id, END));
    for (const sub of ['show', 'follow']) {
      const r = await runCli(['transcript', sub, ''], { env });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`^quackd: transcript ${sub}: empty run id \\(give a run id, a unique prefix of one, or 'last'`));
    }
  });

  it('an id or sub-command as typed is echoed escaped', async () => {
    const { home, line, path } = transcripts();
    const env = { QUACKD_HOME: home };
    for (const id of ['20261205-120000-a', '20261205-120001-b']) writeFileSync(path(id), line(id, START) + line(id, END));
    for (const args of [['transcript', 'show', '\x1b[31m'], ['transcript', '\x1b[31m'], ['transcript', 'follow', '\x1b[31m']]) {
      const r = await runCli(args, { env });
      assert.equal(r.code, 2, r.stderr);
      assert.ok(!r.stderr.includes('\x1b'), JSON.stringify(r.stderr));
      assert.match(r.stderr, /"\\x1b\[31m"/);
    }
  });
});
