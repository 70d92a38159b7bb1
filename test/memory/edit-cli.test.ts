/**
 * `quackd memory edit` against writes made while the person edits, the built CLI as a child
 * process on a real store: a kept edit applied later with --from removes only what the person
 * deleted, and an entry changed or forgotten meanwhile is never overwritten with the older text
 * nor removed, and is named.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MAIN, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

function setup() {
  const home = tempDir('quackd-edit-');
  const q = (args: readonly string[], editor = 'false') => runCli(args, { env: { QUACKD_HOME: home, EDITOR: editor, VISUAL: '', COLUMNS: '300' } });
  const add = async (text: string, ...more: string[]) => {
    const r = await q(['memory', 'add', text, ...more]);
    assert.equal(r.code, 0, r.stderr);
    return /remembered (\S+)/.exec(r.stdout)?.[1] ?? assert.fail(r.stdout);
  };
  /** An editor: a shell script given the file as $1; `quackd` in it is this build. */
  const editor = (body: string) => {
    const file = join(home, `editor-${Math.random().toString(36).slice(2)}.sh`);
    writeFileSync(file, `#!/bin/sh\nquackd() { "${process.execPath}" "${MAIN}" "$@" >/dev/null; }\n${body}\n`, { mode: 0o755 });
    return file;
  };
  const texts = async () => (await q(['memory', 'show', '--raw'])).stdout.trim().split('\n').map((l) => (JSON.parse(l) as { text: string }).text).sort();
  return { home, q, add, editor, texts };
}

describe('quackd memory edit with writes meanwhile (CLI)', () => {
  it('a kept edit applied with --from keeps what was written since it was kept', async () => {
    const { q, add, editor, texts } = setup();
    await add('the ball is blue');
    await add('remove me');
    const broken = editor(`sed -i -e 's/the ball is blue/the ball is red/' -e '/remove me/d' "$1"\necho 'broken' >> "$1"`);
    const garbled = await q(['memory', 'edit'], broken);
    assert.equal(garbled.code, 2, garbled.stderr);
    const kept = /your edit is kept in (\S+):/.exec(garbled.stderr)?.[1] ?? assert.fail(garbled.stderr);

    // Life goes on before the person comes back to the kept file.
    assert.equal((await q(['run', 'hello-world'])).code, 0);
    await add('the charger moved to the hall');
    writeFileSync(kept, readFileSync(kept, 'utf8').replace('broken\n', ''));

    const r = await q(['memory', 'edit', '--from', kept]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'memory of microduck:sim2d: 1 changed, 0 added, 1 removed');
    const now = await texts();
    assert.equal(now.length, 3, now.join('\n'));
    assert.ok(now.includes('the ball is red') && now.includes('the charger moved to the hall'), now.join('\n'));
    assert.ok(now.some((t) => t.startsWith('hello-world: success')), now.join('\n'));
  });

  it('an entry changed or forgotten while the editor is open keeps the newer write, and is named', async () => {
    const { q, add, editor, texts } = setup();
    const ball = await add('the ball is blue', '--topic', 'ball');
    const rug = await add('the rug is slippery', '--topic', 'rug');
    const lamp = await add('the lamp is on');
    // While the person edits: a run supersedes the ball and rug notes and the lamp note is forgotten.
    const script = editor(
      [
        `quackd memory add 'the ball is green' --topic ball`,
        `quackd memory add 'the rug is dry now' --topic rug`,
        `quackd memory forget ${lamp}`,
        `sed -i -e 's/the ball is blue/the ball is red/' -e '/the rug is slippery/d' -e 's/the lamp is on/the lamp is off/' "$1"`,
      ].join('\n'),
    );
    const r = await q(['memory', 'edit'], script);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'memory of microduck:sim2d: 0 changed, 0 added, 0 removed');
    assert.equal(
      r.stderr.trim(),
      `quackd: warning: memory edit: changed since you began, the newer kept: ${ball} (line 1 not written), ${rug} (not removed); forgotten since you began: ${lamp} (line 2 not written)`,
    );
    assert.deepEqual(await texts(), ['the ball is green', 'the rug is dry now']);
  });

  it('a file that does not say what its edit was shown removes nothing, and says so', async () => {
    const { home, q, add, texts } = setup();
    await add('the ball is blue');
    await add('the lamp is on');
    const raw = (await q(['memory', 'show', '--raw'])).stdout;
    const file = join(home, 'by-hand.jsonl');
    writeFileSync(file, raw.split('\n').filter((l) => !l.includes('lamp')).join('\n').replace('the ball is blue', 'the ball is red'));
    const r = await q(['memory', 'edit', '--from', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'memory of microduck:sim2d: 1 changed, 0 added, 0 removed');
    assert.match(r.stderr, /by-hand\.jsonl does not say what its edit was shown, so no entry is removed/);
    assert.deepEqual(await texts(), ['the ball is red', 'the lamp is on']);
  });
});
