/**
 * The built CLI on a real pseudo-terminal 60 and 80 columns wide (test/helpers/terminal.ts): no
 * line wider than the terminal, no word broken (each word the pipe shows is on screen, whole or
 * cut short with `…`), a table's run ids never cut, and a recall answer one line in the steps.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { visibleWidth } from '../../src/cli/fit.js';
import { runCli } from '../helpers/cli.js';
import { onTerminal } from '../helpers/terminal.js';

const WIDTHS = [60, 80] as const;
const NOTE = 'the charger is under the desk in the study, behind the green basket with the dog toys and the old shoes';

let home: string;
const env = (): NodeJS.ProcessEnv => ({ QUACKD_HOME: home });

/** What a pipe shows: the same words, each record whole on one line. */
async function piped(args: readonly string[]): Promise<string> {
  const r = await runCli(args, { env: env() });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

const words = (text: string): string[] =>
  text
    .replace(/✔/g, 'OK')
    .split(/\s+/)
    .filter((w) => w !== '');

/** Every line within `width`, and the words of `pipe` on screen in order, each whole or cut short with `…`. */
function fitsWholeWords(lines: readonly string[], width: number, pipe: string): void {
  for (const l of lines) assert.ok(visibleWidth(l) <= width, `wider than ${width}: ${JSON.stringify(l)}`);
  const got = words(lines.join('\n'));
  const want = words(pipe);
  assert.equal(got.length, want.length, `${lines.join('\n')}\n--- the pipe showed:\n${pipe}`);
  for (const [i, w] of got.entries()) assert.ok(w === want[i] || (w.endsWith('…') && want[i]!.startsWith(w.slice(0, -1))), `"${w}" on screen where the pipe has "${want[i]}"`);
}

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'quackd-terminal-'));
  // Two runs (one recalls the other's episode) and a long note: tables with long reasons and texts.
  for (const duck of ['hello-world', 'find-and-kick', 'find-and-kick']) assert.equal((await runCli(['run', duck], { env: env() })).code, 0);
});
after(() => rmSync(home, { recursive: true, force: true }));

describe('quackd on a terminal 60 and 80 columns wide', () => {
  it("memory add's confirmation wraps between words", async () => {
    for (const width of WIDTHS) {
      const r = await onTerminal(['memory', 'add', `${NOTE} (${width})`], width, env());
      assert.equal(r.code, 0, r.lines.join('\n'));
      assert.ok(r.lines.length > 1, r.lines.join('\n'));
      fitsWholeWords(r.lines, width, `remembered ${/n-\S+/.exec(r.lines[0]!)?.[0] ?? '?'} for microduck:sim2d: ${NOTE} (${width})`);
    }
  });

  for (const args of [['transcript', 'list'], ['transcript', 'show'], ['memory', 'show'], ['config', 'check'], ['ducks'], ['bodies']]) {
    it(`${args.join(' ')} fits, with every word whole`, async () => {
      const pipe = await piped(args);
      for (const width of WIDTHS) {
        const r = await onTerminal(args, width, env());
        assert.equal(r.code, 0, r.lines.join('\n'));
        fitsWholeWords(r.lines, width, pipe);
      }
    });
  }

  it('transcript list never cuts a run id: it is what show takes', async () => {
    const ids = (await piped(['transcript', 'list'])).split('\n').filter((l) => l !== '').map((l) => l.split(' ')[0]!);
    assert.equal(ids.length, 3);
    for (const width of WIDTHS) {
      const r = await onTerminal(['transcript', 'list'], width, env());
      for (const id of ids) assert.ok(r.lines.some((l) => l.startsWith(`${id} `)), `${id} at ${width}:\n${r.lines.join('\n')}`);
    }
  });

  it("a run's recall answer is one step line, pointing to transcript show", async () => {
    for (const width of WIDTHS) {
      const r = await onTerminal(['run', 'find-and-kick'], width, env());
      assert.equal(r.code, 0, r.lines.join('\n'));
      for (const l of r.lines) assert.ok(visibleWidth(l) <= width, `wider than ${width}: ${JSON.stringify(l)}`);
      const recall = r.lines.findIndex((l) => /^ {5}recall /.test(l));
      assert.ok(recall >= 0, r.lines.join('\n'));
      assert.match(r.lines[recall]!, /1 match: see quackd transcript show$/);
      assert.match(r.lines[recall + 1]!, /^ {2}1 {2}search_scan /, 'the next line is the next step');
    }
  });
});
