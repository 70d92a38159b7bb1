/**
 * `quackd transcript follow` of a transcript file (no service), as a user runs it: a run killed at
 * its gate ends the follow with a line saying it never ended, a file deleted while followed ends
 * it with one line (exit 3), and lines written in pieces are shown once, whole.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCli, type CliResult } from '../helpers/cli.js';
import { writeDuck } from '../helpers/ducks.js';
import { startOnTerminal, type OnTerminal } from '../helpers/terminal.js';
import { tempDir } from '../helpers/tmp.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, what: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what()}`);
    await sleep(20);
  }
}

function homeWithGatedDuck(): string {
  const home = tempDir('quackd-follow-');
  mkdirSync(join(home, 'ducks'));
  writeDuck(join(home, 'ducks'), 'gated', 'robot: microduck:sim2d\nverbs: [quack]\nconfirm: [quack]\nbudgets: { steps: 3, llm_calls: 5, seconds: 120 }');
  return home;
}

/** A local run of the gated duck on a terminal, waiting at its gate; its id and its process's id. */
async function runAtGate(home: string): Promise<{ run: OnTerminal; id: string; pid: number }> {
  const dir = join(home, 'transcripts');
  const before = new Set(readdirSync(dir, { withFileTypes: false }).map(String));
  const run = startOnTerminal(['run', 'gated', '--local', '--no-memory'], 200, { QUACKD_HOME: home }, 60_000);
  await until(() => run.text().includes('confirm? [y/N]'), run.text);
  const file = readdirSync(dir).find((n) => n.endsWith('.jsonl') && !before.has(n)) ?? '';
  const start = JSON.parse(readFileSync(join(dir, file), 'utf8').split('\n')[0] ?? '') as { run: string; pid: number };
  return { run, id: start.run, pid: start.pid };
}

/** `quackd transcript follow ID` as a child; what it has printed so far, and its result. */
function follow(home: string, id: string): { out: () => string; done: Promise<CliResult> } {
  let out = '';
  const done = runCli(['transcript', 'follow', id], {
    env: { QUACKD_HOME: home },
    timeoutMs: 20_000,
    onSpawn: (c: ChildProcess) => void c.stdout?.on('data', (d: string) => (out += d)),
  });
  return { out: () => out, done };
}

describe('quackd transcript follow of a file', () => {
  it('ends when the run was killed at its gate, saying it never ended', async () => {
    const home = homeWithGatedDuck();
    mkdirSync(join(home, 'transcripts'));
    const { run, id, pid } = await runAtGate(home);
    try {
      const f = follow(home, id);
      await until(() => f.out().includes('gated on microduck:sim2d'), f.out);
      await sleep(1_000);
      process.kill(pid, 'SIGKILL');
      const r = await f.done;
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, '');
      assert.equal(r.stdout.trim().split('\n').at(-1), `FAIL unfinished — the run never ended: its process ${pid} is gone · transcript ${id}`);
    } finally {
      run.kill();
    }
  });

  it('ends with one line, exit 3, when the file is deleted while it is followed', async () => {
    const home = homeWithGatedDuck();
    mkdirSync(join(home, 'transcripts'));
    const { run, id } = await runAtGate(home);
    try {
      const f = follow(home, id);
      await until(() => f.out().includes('gated on microduck:sim2d'), f.out);
      rmSync(join(home, 'transcripts', `${id}.jsonl`));
      const r = await f.done;
      assert.equal(r.code, 3, r.stderr);
      assert.equal(r.stderr, `quackd: transcript ${id} was deleted while it was followed (by 'quackd transcript prune' or retention?)\n`);
    } finally {
      run.kill();
    }
  });

  it('shows a line written in pieces once, whole, to the end, and warns of nothing', async () => {
    const home = tempDir('quackd-follow-');
    const dir = join(home, 'transcripts');
    mkdirSync(dir);
    const id = '20261205-120000-pieces';
    const path = join(dir, `${id}.jsonl`);
    const t = '2026-12-05T12:00:00.000Z';
    const line = (o: object): string => `${JSON.stringify({ t, run: id, ...o })}\n`;
    writeFileSync(path, line({ type: 'start', duck: 'pieces', body: 'microduck:sim2d', provider: 'fake', model: 'scripted', dryRun: false, seed: 1, budgets: { steps: 3, llm_calls: 3, seconds: 30 }, verbs: ['quack'], confirm: [], quackd: '0', node: 'v22', pid: process.pid }));
    const f = follow(home, id);
    await until(() => f.out().includes('pieces on microduck:sim2d'), f.out);
    // Cut inside the duck's four bytes: the follower must wait for the rest of the line.
    const result = Buffer.from(line({ type: 'verb_result', step: 1, verb: 'quack', label: 'quack', ok: true, summary: 'quack 🦆', invented: false }));
    const cut = result.indexOf(Buffer.from('🦆')) + 2;
    appendFileSync(path, result.subarray(0, cut));
    // Over two seconds in all, eleven polls and more: the old follow added an abort listener on each.
    await sleep(1_500);
    appendFileSync(path, result.subarray(cut));
    await sleep(1_000);
    appendFileSync(path, line({ type: 'end', outcome: 'success', reason: 'quacked', steps: 1, llmCalls: 1, seconds: 1 }));
    const r = await f.done;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.equal(r.stdout.split('\n').filter((l) => l.includes('quack 🦆')).length, 1, r.stdout);
    assert.match(r.stdout.trim().split('\n').at(-1) ?? '', new RegExp(`success — quacked .* · transcript ${id}$`));
  });
});
