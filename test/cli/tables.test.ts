/**
 * The CLI's tables (`ducks`, `bodies`, `transcript list`, `memory show`), in-process with a
 * captured output: aligned columns, lines that fit a terminal between words, whole lines into a
 * pipe, and what a table leaves out said out loud.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { stripColor } from '../../src/cli/fit.js';
import { createOutput } from '../../src/cli/output.js';
import { bodiesCommand } from '../../src/commands/bodies.js';
import { ducksCommand } from '../../src/commands/ducks.js';
import { addCommand } from '../../src/commands/memory/add.js';
import { showCommand } from '../../src/commands/memory/show.js';
import { transcriptCommand } from '../../src/commands/transcript.js';
import { STARTERS_DIR } from '../../src/ducks/find.js';

function capture(columns?: number) {
  const out = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
  if (columns !== undefined) {
    out.isTTY = true;
    out.columns = columns;
  }
  let text = '';
  out.on('data', (d: Buffer) => (text += d.toString()));
  return { io: createOutput(out, new PassThrough()), lines: () => stripColor(text).trimEnd().split('\n') };
}

/** Every line within the width, or one word that is wider than it. */
function fits(lines: readonly string[], width: number): void {
  for (const l of lines) assert.ok([...l].length <= width || !l.trim().includes(' '), `wider than ${width}: ${JSON.stringify(l)}`);
}

let saved: string | undefined;
let home: string;
beforeEach(() => {
  saved = process.env['QUACKD_HOME'];
  home = mkdtempSync(join(tmpdir(), 'quackd-tables-'));
  process.env['QUACKD_HOME'] = home;
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
  if (saved === undefined) delete process.env['QUACKD_HOME'];
  else process.env['QUACKD_HOME'] = saved;
});

describe('quackd ducks', () => {
  it('lists a duck of yours that shadows a starter once, marked as the one that wins', async () => {
    mkdirSync(join(home, 'ducks'));
    copyFileSync(join(STARTERS_DIR, 'hello-world.duck'), join(home, 'ducks', 'hello-world.duck'));
    const { io, lines } = capture();
    await ducksCommand.run([], io);
    const hello = lines().filter((l) => l.startsWith('hello-world '));
    assert.equal(hello.length, 1, lines().join('\n'));
    assert.match(hello[0]!, /^hello-world +yours \(wins over the starter\) +A smoke test/);
    assert.match(lines().find((l) => l.startsWith('find-and-kick'))!, /^find-and-kick +starter +Find the ball/);
    // The titles start in one column.
    const at = lines().map((l) => l.search(/A smoke|Find the/));
    assert.equal(new Set(at).size, 1, lines().join('\n'));
  });

  it('wraps a title between words on a narrow terminal', async () => {
    const { io, lines } = capture(50);
    await ducksCommand.run([], io);
    assert.ok(lines().length > 2);
    fits(lines(), 50);
  });
});

describe('quackd bodies', () => {
  it('aligns the descriptions and the verbs/measures lists in columns', async () => {
    const { io, lines } = capture();
    await bodiesCommand.run([], io);
    const heads = lines().filter((l) => /^\S/.test(l));
    assert.ok(heads.length >= 2);
    const descriptionAt = heads.map((l) => l.search(/ {2}\S/) + 2);
    assert.equal(new Set(descriptionAt).size, 1, heads.join('\n'));
    const listAt = lines()
      .filter((l) => /^ {2}\S/.test(l))
      .map((l) => l.length - l.replace(/^ {2}(verbs|not yet|measures) +/, '').length);
    assert.equal(new Set(listAt).size, 1, lines().join('\n'));
  });

  it('fits a narrow terminal, never breaking a word', async () => {
    const { io, lines } = capture(60);
    await bodiesCommand.run([], io);
    fits(lines(), 60);
    assert.ok(lines().some((l) => l.includes('link_crc_errors')));
  });
});

describe('quackd transcript list', () => {
  function runs(n: number): void {
    const dir = join(home, 'transcripts');
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < n; i++) {
      const id = `20261130-0100${String(i).padStart(2, '0')}-hello-world`;
      const start = { t: '2026-11-30T01:00:00Z', run: id, type: 'start', duck: 'hello-world', body: 'microduck:sim2d', provider: 'fake', model: 'fake', dryRun: false, seed: 7, budgets: {}, verbs: [], confirm: [], quackd: '0', node: 'v20' };
      const end = { t: '2026-11-30T01:00:01Z', run: id, type: 'end', outcome: 'budget', reason: 'budget: 3 steps spent, and then a reason long enough to need wrapping', steps: 3, llmCalls: 4, seconds: 0.1 };
      writeFileSync(join(dir, `${id}.jsonl`), `${JSON.stringify(start)}\n${JSON.stringify(end)}\n`);
    }
  }

  it('says when it shows fewer runs than there are', async () => {
    runs(25);
    const shown = capture();
    await transcriptCommand.run(['list'], shown.io);
    assert.equal(shown.lines().length, 21);
    assert.equal(shown.lines().at(-1), 'showing 20 of 25; --all or --limit N');
    const all = capture();
    await transcriptCommand.run(['list', '--all'], all.io);
    assert.equal(all.lines().length, 25);
    const some = capture();
    await transcriptCommand.run(['list', '--limit', '3'], some.io);
    assert.equal(some.lines().at(-1), 'showing 3 of 25; --all or --limit N');
    const json = capture();
    await transcriptCommand.run(['list', '--json', '--limit', '3'], json.io);
    assert.equal((JSON.parse(json.lines().join('\n')) as unknown[]).length, 3);
  });

  it('keeps a whole line into a pipe, and wraps between words on a terminal', async () => {
    runs(1);
    const pipe = capture();
    await transcriptCommand.run(['list'], pipe.io);
    assert.equal(pipe.lines().length, 1);
    const tty = capture(80);
    await transcriptCommand.run(['list'], tty.io);
    assert.ok(tty.lines().length > 1);
    fits(tty.lines(), 80);
  });
});

describe('quackd memory show', () => {
  it('wraps a long note under the text column on a terminal', async () => {
    const dir = join(home, 'memory');
    const note = 'the charger is under the desk in the study, behind the green basket with the dog toys';
    await addCommand.run([note, '--memory-dir', dir], capture().io);
    const pipe = capture();
    await showCommand.run(['--memory-dir', dir], pipe.io);
    assert.equal(pipe.lines().filter((l) => l.includes('charger')).length, 1);
    const tty = capture(70);
    await showCommand.run(['--memory-dir', dir], tty.io);
    fits(tty.lines(), 70);
    const rows = tty.lines().slice(tty.lines().findIndex((l) => l.includes('charger')));
    assert.ok(rows.length > 1);
    assert.match(rows[1]!, /^ {38}\S/);
    assert.equal(rows.map((l) => l.trim()).join(' ').includes(note), true);
  });
});
