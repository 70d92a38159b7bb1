/**
 * The CLI's tables (`ducks`, `bodies`, `transcript list`, `memory show`), in-process with a
 * captured output: aligned columns, lines that fit a terminal between words, whole lines into a
 * pipe, and what a table leaves out said out loud.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { stripColor } from '../../src/cli/fit.js';
import { STARTERS_DIR } from '../../src/ducks/find.js';
import { quackd } from '../helpers/quackd.js';

/** `quackd ARGS` in-process with its own QUACKD_HOME: its output's lines, on a terminal `columns` wide if given. */
async function table(args: readonly string[], columns?: number): Promise<string[]> {
  const r = await quackd(args, { env: { QUACKD_HOME: home }, ...(columns !== undefined ? { columns } : {}) });
  assert.equal(r.code, 0, r.stderr);
  return stripColor(r.stdout).trimEnd().split('\n');
}

/** Every line within the width (a word wider than a line is cut short, never left to the terminal to break). */
function fits(lines: readonly string[], width: number): void {
  for (const l of lines) assert.ok([...l].length <= width, `wider than ${width}: ${JSON.stringify(l)}`);
}

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'quackd-tables-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('quackd ducks', () => {
  it('lists a duck of yours that shadows a starter once, marked as the one that wins', async () => {
    mkdirSync(join(home, 'ducks'));
    copyFileSync(join(STARTERS_DIR, 'hello-world.duck'), join(home, 'ducks', 'hello-world.duck'));
    const lines = await table(['ducks']);
    const hello = lines.filter((l) => l.startsWith('hello-world '));
    assert.equal(hello.length, 1, lines.join('\n'));
    assert.match(hello[0]!, /^hello-world +yours \(wins over the starter\) +A smoke test/);
    assert.match(lines.find((l) => l.startsWith('find-and-kick'))!, /^find-and-kick +starter +Find the ball/);
    // The titles start in one column.
    const at = lines.map((l) => l.search(/A smoke|Find the|Walk a short|(?:[A-Za-z]+ )+looks all round/));
    assert.equal(new Set(at).size, 1, lines.join('\n'));
  });

  it('wraps a title between words on a narrow terminal', async () => {
    const lines = await table(['ducks'], 50);
    assert.ok(lines.length > 2);
    fits(lines, 50);
  });
});

describe('quackd bodies', () => {
  it('aligns the descriptions and the verbs/measures lists in columns', async () => {
    const lines = await table(['bodies']);
    const heads = lines.filter((l) => /^\S/.test(l));
    assert.ok(heads.length >= 2);
    const descriptionAt = heads.map((l) => l.search(/ {2}\S/) + 2);
    assert.equal(new Set(descriptionAt).size, 1, heads.join('\n'));
    const listAt = lines
      .filter((l) => /^ {2}\S/.test(l))
      .map((l) => l.length - l.replace(/^ {2}(verbs|not yet|measures) +/, '').length);
    assert.equal(new Set(listAt).size, 1, lines.join('\n'));
  });

  it('fits a narrow terminal, never breaking a word', async () => {
    const lines = await table(['bodies'], 60);
    fits(lines, 60);
    assert.ok(lines.some((l) => l.includes('link_crc_errors')));
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
    const shown = await table(['transcript', 'list']);
    assert.equal(shown.length, 21);
    assert.equal(shown.at(-1), 'showing 20 of 25; --all or --limit N');
    const all = await table(['transcript', 'list', '--all']);
    assert.equal(all.length, 25);
    const some = await table(['transcript', 'list', '--limit', '3']);
    assert.equal(some.at(-1), 'showing 3 of 25; --all or --limit N');
    const json = await table(['transcript', 'list', '--json', '--limit', '3']);
    assert.equal((JSON.parse(json.join('\n')) as unknown[]).length, 3);
  });

  it('keeps a whole line into a pipe, and wraps between words on a terminal', async () => {
    runs(1);
    const pipe = await table(['transcript', 'list']);
    assert.equal(pipe.length, 1);
    const tty = await table(['transcript', 'list'], 80);
    assert.ok(tty.length > 1);
    fits(tty, 80);
  });
});

describe('quackd memory show', () => {
  it('wraps a long note under the text column on a terminal', async () => {
    const dir = join(home, 'memory');
    const note = 'the charger is under the desk in the study, behind the green basket with the dog toys';
    await table(['memory', 'add', note, '--memory-dir', dir]);
    const pipe = await table(['memory', 'show', '--memory-dir', dir]);
    assert.equal(pipe.filter((l) => l.includes('charger')).length, 1);
    const tty = await table(['memory', 'show', '--memory-dir', dir], 70);
    fits(tty, 70);
    const rows = tty.slice(tty.findIndex((l) => l.includes('charger')));
    assert.ok(rows.length > 1);
    assert.match(rows[1]!, /^ {38}\S/);
    assert.equal(rows.map((l) => l.trim()).join(' ').includes(note), true);
  });
});
