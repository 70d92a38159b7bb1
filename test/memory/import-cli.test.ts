/**
 * `quackd memory import` of a file the rules refuse line by line, the built CLI as a child process
 * on a real store: as README says of a file with no line to import, exit 2 in one line, nothing added.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

describe('quackd memory import (CLI)', () => {
  it('a file whose every line is refused is exit 2 in one line and adds nothing', async () => {
    const home = tempDir('quackd-import-');
    const q = (...args: string[]) => runCli(['memory', ...args], { env: { QUACKD_HOME: home } });
    const file = join(home, 'm.jsonl');
    writeFileSync(file, `${JSON.stringify({ text: 'x'.repeat(301) })}\n${JSON.stringify({ text: 'the wifi password=hunter2' })}\n`);
    const r = await q('import', file);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /^quackd: memory import: nothing to import from .*m\.jsonl: skipped 2 lines \(1: a note is at most 300 characters .*; 2: not saved: it looks like a password/);
    assert.ok(!r.stderr.includes('hunter2'));
    assert.match((await q('show')).stdout, /no memory yet|0 notes/);

    // One line the rules take is an import, the refused one named.
    writeFileSync(file, `${JSON.stringify({ text: 'x'.repeat(301) })}\n${JSON.stringify({ text: 'the charger is under the desk' })}\n`);
    const some = await q('import', file);
    assert.equal(some.code, 0, some.stderr);
    assert.match(some.stderr, /skipped 1 line \(1: a note is at most 300 characters .*\); 1 kept/);
    assert.match(some.stdout, /1 added/);
  });
});
