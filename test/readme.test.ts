/**
 * README's examples hold: the quick start's run prints what README shows on a fresh machine, the
 * malformed duck it shows prints the one line it promises, the list form of `success_when` it shows
 * parses, and a duck without a numbered strategy is refused.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { InputError } from '../src/cli/errors.js';
import { parseDuck } from '../src/ducks/parse.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/tmp.js';

const README = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');

/** The body of the first fenced block after `marker`. */
function blockAfter(marker: string): string {
  const at = README.indexOf(marker);
  assert.ok(at >= 0, `README has no "${marker}"`);
  const m = /```[a-z]*\n([\s\S]*?)```/.exec(README.slice(at));
  assert.ok(m?.[1] !== undefined, `no code block after "${marker}"`);
  return m[1];
}

describe('README', () => {
  it("the quick start's find-and-kick prints the lines README shows, on a fresh machine (no memory yet)", async () => {
    const shown = blockAfter('```\nmemory: nothing yet');
    const home = tempDir();
    const r = await runCli(['run', 'find-and-kick'], { env: { QUACKD_HOME: home, QUACKD_MEMORY_DIR: join(home, 'memory'), NO_COLOR: '1' } });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    // Only the clock and the run's id differ from one run to the next; piped output says OK for ✔.
    const same = (text: string): string => text.replace('✔', 'OK').replace(/\d+\.\d s · transcript \S+/, '… s · transcript …');
    assert.equal(same(r.stdout), same(shown));
  });

  it('the malformed-duck example prints exactly the line README shows, exit 2', async () => {
    const duck = blockAfter('`ducks/typo.duck`:');
    const at = README.indexOf('$ quackd run ducks/typo.duck\n');
    assert.ok(at >= 0);
    const session = README.slice(at, README.indexOf('```', at)).split('\n');
    const expected = session.find((l) => l.startsWith('quackd: '));
    assert.ok(expected !== undefined);
    const cwd = tempDir();
    mkdirSync(join(cwd, 'ducks'));
    writeFileSync(join(cwd, 'ducks', 'typo.duck'), duck);
    const r = await runCli(['run', 'ducks/typo.duck'], { cwd, env: { QUACKD_HOME: tempDir() } });
    assert.equal(r.code, 2);
    assert.equal(r.stderr, `${expected}\n`);
  });

  it('the list form of success_when parses into every check', () => {
    const list = blockAfter('`success_when` is one check or a list');
    const d = parseDuck(`---\nverbs: [kick, quack]\n${list}---\n# T\n\n1. kick\n`, 'x.duck', 'x');
    assert.deepEqual(d.successWhen.map((c) => c.metric), ['ball_displaced_m', 'quacks']);
  });

  it('a duck needs a numbered strategy, as README says', () => {
    assert.match(README, /must hold a numbered strategy/);
    assert.throws(() => parseDuck('---\nverbs: [quack]\n---\n# Hi\n\nSay hello.\n', 'ducks/x.duck', 'x'), (err: unknown) => err instanceof InputError && err.message === 'ducks/x.duck:4: no numbered strategy: add steps like "1. search_scan to find the ball"');
  });
});
