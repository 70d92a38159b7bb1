/** `quackd memory …` as a child process, the way a person runs it (needs a built dist/, as `npm test` makes). */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { open } from 'lmdb';
import { DATA_FILE } from '../../src/memory/store.js';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';
import { damagePageFlags } from './damage.js';

function setup() {
  const home = tempDir('quackd-mem-cli-');
  const dir = join(home, 'memory');
  const env = { QUACKD_HOME: home, QUACKD_MEMORY_DIR: dir };
  const q = (...args: string[]) => quackd(['memory', ...args], { env });
  return { home, dir, env, q };
}

const fingerprint = (dir: string) => {
  const path = join(dir, DATA_FILE);
  return `${createHash('sha256').update(readFileSync(path)).digest('hex')} ${statSync(path).mtimeMs}`;
};

describe('quackd memory (CLI)', () => {
  it('a memory directory that is a file is an error, not "no memory yet"', async () => {
    const { home } = setup();
    const file = join(home, 'not-a-dir');
    writeFileSync(file, 'x');
    const env = { QUACKD_HOME: home, QUACKD_MEMORY_DIR: file };
    for (const sub of ['show', 'doctor']) {
      const r = await quackd(['memory', sub], { env });
      assert.equal(r.code, 3, `${sub}: ${r.stdout}${r.stderr}`);
      assert.match(r.stdout + r.stderr, /not a directory \(check --memory-dir or QUACKD_MEMORY_DIR\)/);
    }
  });

  it('adds, shows, searches, forgets; one-line errors with exit 2', async () => {
    const { q } = setup();
    const add = await q('add', 'the charger is under the desk', '--tag', 'place');
    assert.equal(add.code, 0, add.stderr);
    const id = /remembered (n-\w+)/.exec(add.stdout)?.[1] ?? '';
    assert.ok(id);
    assert.equal((await q('add', 'the ball is in the kitchen', '--topic', 'ball')).code, 0);
    assert.match((await q('add', 'the ball is in the hall', '--topic', 'ball')).stdout, /replaced .* \(was: the ball is in the kitchen\)/);
    const show = await q('show');
    assert.equal(show.code, 0);
    assert.match(show.stdout, /microduck:sim2d: 2 notes, 0 earlier runs/);
    assert.ok(show.stdout.indexOf('the ball is in the hall') < show.stdout.indexOf('the charger'));
    assert.ok(!show.stdout.includes('kitchen'));
    const raw = (await q('show', '--raw')).stdout.trim().split('\n').map((l) => JSON.parse(l) as { text: string; history: unknown[] });
    assert.equal(raw.length, 2);
    assert.equal(raw[1]?.history.length, 1);
    assert.match((await q('search', 'where is the charging dock')).stdout, new RegExp(`${id}.*the charger is under the desk`));
    assert.match((await q('search', 'what is the weather')).stdout, /nothing in the memory of microduck:sim2d answers/);
    assert.equal((await q('show', '--robot', 'microduck:jsonrpc')).stdout.trim().startsWith('microduck:jsonrpc: no memory yet'), true);

    const secret = await q('add', 'the wifi password=hunter2');
    assert.equal(secret.code, 2);
    assert.match(secret.stderr, /^quackd: not saved: it looks like a password/);
    assert.ok(!secret.stderr.includes('hunter2'));
    const long = await q('add', 'x'.repeat(301));
    assert.equal(long.code, 2);
    assert.match(long.stderr, /at most 300 characters \(this one has 301\)/);
    assert.equal((await q('forget', 'n-nope')).code, 2);
    assert.equal((await q('show', '--robot', 'nocolon')).code, 2);
    // A key no body of this quackd (or robot of the fleet) has is a typo, refused with the closest.
    const typo = await q('add', 'typo note', '--robot', 'microduck:sim3d');
    assert.equal(typo.code, 2);
    assert.equal(typo.stderr.trim(), `quackd: --robot: unknown body "microduck:sim3d" (did you mean "microduck:sim2d"?) ('quackd bodies' lists them)`);
    assert.equal((await q('frobnicate')).code, 2);
    for (const r of [secret, long]) assert.equal(r.stderr.trim().split('\n').length, 1);

    const forget = await q('forget', id);
    assert.equal(forget.code, 0);
    assert.doesNotMatch((await q('show')).stdout, /charger/);
  });

  it('clear asks, refuses without a TTY, and with --yes clears only that body', async () => {
    const { q } = setup();
    await q('add', 'sim note');
    await q('add', 'serial-body note', '--robot', 'microduck:jsonrpc');
    const refused = await q('clear');
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /without a terminal.*--yes/);
    assert.match((await q('show')).stdout, /sim note/);
    const cleared = await q('clear', '--yes');
    assert.equal(cleared.code, 0);
    assert.match(cleared.stdout, /cleared 1 entry of microduck:sim2d/);
    assert.match((await q('show', '--robot', 'microduck:jsonrpc')).stdout, /serial-body note/);
  });

  it('unnamed, a command uses the memory of the fleet\'s one robot (a Pi with its duck configured), else the simulator\'s', async () => {
    const { home, q } = setup();
    writeFileSync(join(home, 'config.yaml'), 'robots:\n  odm: { body: microduck:feetech, port: /dev/ttyUSB0 }\n');
    assert.equal((await q('add', 'the charger is by the door')).code, 0);
    assert.match((await q('show')).stdout, /^microduck:feetech: 1 note/m);
    assert.match((await q('show', '--robot', 'odm')).stdout, /the charger is by the door/);
    // Clearing without asking needs the robot named: a script's `clear --yes` meant for the simulator must not empty the duck's memory.
    const cleared = await q('clear', '--yes');
    assert.equal(cleared.code, 2);
    assert.equal(cleared.stderr, "quackd: memory clear --yes: name the robot whose memory to clear (--robot odm) (left out, it is odm's (microduck:feetech): the fleet's one robot)\n");
    assert.match((await q('show')).stdout, /the charger is by the door/);
    writeFileSync(join(home, 'config.yaml'), 'robots:\n  odm: { body: microduck:feetech, port: /dev/ttyUSB0 }\n  den: { body: microduck:sim2d }\n');
    assert.match((await q('show')).stdout, /^microduck:sim2d: no memory yet/m);
  });

  it('export and import round-trip; bad lines are skipped with a warning naming them', async () => {
    const { home, q } = setup();
    await q('add', 'the stairs are behind the kitchen door');
    await q('add', 'kick right works better', '--tag', 'kick');
    const exported = (await q('export')).stdout;
    const file = join(home, 'm.jsonl');
    writeFileSync(file, `${exported}not json\n{"text":"the rug is slippery"}\n{"nope":1}\n`);
    const imp = await q('import', file, '--robot', 'microduck:jsonrpc');
    assert.equal(imp.code, 0, imp.stderr);
    assert.match(imp.stdout, /3 added/);
    assert.match(imp.stderr, /skipped 2 lines \(3: not JSON; 5: no text\); 3 kept/);
    const again = await q('import', file, '--robot', 'microduck:jsonrpc');
    assert.match(again.stdout, /0 added, 1 refreshed, 0 replaced, 2 already there/);
    assert.equal((await q('import', join(home, 'missing.jsonl'))).code, 2);
  });

  it('import of a file with no readable line is exit 2 in one line, and adds nothing', async () => {
    const { home, q } = setup();
    await q('add', 'the stairs are behind the kitchen door');
    const cases = [
      ['bad.jsonl', 'not json\n\n{"nope":1}\n', /^quackd: memory import: nothing to import from \S+bad\.jsonl: skipped 2 lines \(1: not JSON; 3: no text\) \(a line is one JSON object with a "text", as memory export writes\)\n$/],
      ['empty.jsonl', '', /^quackd: memory import: \S+empty\.jsonl has no entries \(a line is one JSON object/],
      ['elsewhere.jsonl', '{"text":"for a typo","body":"microduck:sim3d"}\n', /^quackd: memory import: nothing to import from \S+: skipped 1 line \(1: body "microduck:sim3d" is no body of this quackd.*\(with --robot KEY every line goes to that body\)\n$/],
    ] as const;
    for (const [name, text, error] of cases) {
      const file = join(home, name);
      writeFileSync(file, text);
      const r = await q('import', file);
      assert.equal(r.code, 2, `${name}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, error);
    }
    assert.equal((await q('show', '--raw')).stdout.trim().split('\n').length, 1);
  });

  it('show --json is one object: the body, the store, its notes and earlier runs newest first', async () => {
    const { dir, q } = setup();
    assert.deepEqual(JSON.parse((await q('show', '--json')).stdout), { body: 'microduck:sim2d', dir, notes: [], episodes: [] });
    await q('add', 'the stairs are behind the kitchen door');
    await q('add', 'kick right works better', '--tag', 'kick');
    const r = await q('show', '--json');
    assert.equal(r.code, 0, r.stderr);
    const shown = JSON.parse(r.stdout) as { body: string; notes: { text: string; tags: string[]; kind: string }[]; episodes: unknown[] };
    assert.deepEqual(shown.notes.map((n) => [n.text, n.tags, n.kind]), [['kick right works better', ['kick'], 'note'], ['the stairs are behind the kitchen door', [], 'note']]);
    assert.equal((await q('show', '--json', '--raw')).code, 2);
  });

  it('show, export, search and doctor leave the store files unchanged', async () => {
    const { dir, q } = setup();
    await q('add', 'the charger is under the desk');
    const before = fingerprint(dir);
    await new Promise((r) => setTimeout(r, 20));
    for (const args of [['show'], ['show', '--raw'], ['export'], ['search', 'charger'], ['doctor']]) {
      const r = await q(...args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    }
    assert.equal(fingerprint(dir), before);
  });

  it('doctor reports counts per body and integrity; a damaged store is exit 3, not a crash', async () => {
    const { dir, q } = setup();
    await q('add', 'sim note');
    await q('add', 'serial-body note', '--robot', 'microduck:jsonrpc');
    const ok = await q('doctor');
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /microduck:jsonrpc\s+1 note\s+0 episodes/);
    assert.match(ok.stdout, /integrity: 2 entries read and valid/);
    chmodSync(dir, 0o755);
    assert.match((await q('doctor')).stdout, /is mode 0755, not 0700/);
    chmodSync(dir, 0o700);
    writeFileSync(join(dir, DATA_FILE), Buffer.alloc(16384, 0x42));
    const bad = await q('doctor');
    assert.equal(bad.code, 3);
    assert.equal(bad.signal, null);
    assert.match(bad.stdout, /not an LMDB database/);
    const show = await q('show');
    assert.equal(show.code, 3);
    assert.match(show.stderr, /^quackd: memory store in .*: the data file is not an LMDB database/);
  });

  it('doctor names a key that is not text (written by another tool) instead of failing', async () => {
    const { dir, q } = setup();
    assert.equal((await q('add', 'a note quackd wrote')).code, 0);
    const root = open({ path: join(dir, DATA_FILE), encoding: 'json', maxDbs: 4, overlappingSync: false });
    await root.openDB<string, number>({ name: 'entries', encoding: 'string' }).put(42, 'not ours');
    await root.close();
    const doctor = await q('doctor');
    assert.equal(doctor.code, 3, doctor.stderr);
    assert.equal(doctor.signal, null);
    assert.match(doctor.stdout, /entry 42: a key in the entries database that is a number, not text/);
    assert.doesNotMatch(doctor.stdout, /TypeError|check failed/);
  });

  it('a damaged inner page: memory commands fail in one line and a run goes on without memory, nothing crashes', async () => {
    const { home, dir, env, q } = setup();
    const file = join(home, 'notes.jsonl');
    writeFileSync(file, `${Array.from({ length: 60 }, (_, i) => JSON.stringify({ text: `filler note ${i} about the hallway` })).join('\n')}\n{"text":"the needle note sits under the sofa"}\n`);
    assert.equal((await q('import', file)).code, 0);
    damagePageFlags(join(dir, DATA_FILE), 'needle note');
    for (const args of [['show'], ['export'], ['search', 'needle'], ['add', 'one more']]) {
      const r = await q(...args);
      assert.equal(r.signal, null, `${args.join(' ')} crashed: ${r.stderr}`);
      assert.equal(r.code, 3, args.join(' '));
      assert.match(r.stderr, /^quackd: memory store in .*: the data file is damaged \(page \d+: not a B-tree page\)/);
      assert.equal(r.stderr.trim().split('\n').length, 1);
    }
    const doctor = await q('doctor');
    assert.equal(doctor.code, 3);
    assert.match(doctor.stdout, /the data file is damaged/);
    const run = await quackd(['run', 'find-and-kick'], { env });
    assert.equal(run.signal, null, run.stderr);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout.split('\n')[0] ?? '', /^memory: off for this run — .*the data file is damaged/);
  });

  it('refuses a secret in a tag, a topic or an imported history, and logs none of it even at debug level', async () => {
    const { home, dir, env } = setup();
    const q = (...args: string[]) => quackd(['memory', ...args], { env: { ...env, QUACKD_LOG_LEVEL: 'debug' } });
    assert.equal((await q('add', 'hello')).code, 0);
    for (const args of [
      ['add', 'the router', '--tag', 'password=hunter2'],
      ['add', 'the router', '--topic', 'key sk-proj-ABCDEFGHIJKLMNOPQRST'],
    ]) {
      const r = await q(...args);
      assert.equal(r.code, 2, args.join(' '));
      // At debug level the store's open is logged first (a JSON line): the error is a line of its own.
      assert.match(r.stderr, /^quackd: not saved: it looks like .*, in (a tag|its topic); secrets never go into memory/m);
      assert.ok(!r.stderr.includes('hunter2') && !r.stderr.includes('ABCDEFGHIJ'));
    }
    const file = join(home, 'm.jsonl');
    writeFileSync(file, '{"text":"the ball is blue","history":[{"time":"2026-01-01T00:00:00Z","text":"api_key=abcdef1234567","source":"human"}]}\n{"text":"the rug is slippery","tags":["AKIAIOSFODNN7EXAMPLE"]}\n{"text":"kept"}\n');
    const imp = await q('import', file);
    assert.equal(imp.code, 0, imp.stderr);
    assert.match(imp.stderr, /skipped 2 lines \(1: not saved: it looks like .*, in its history; .*; 2: not saved: it looks like an AWS access key, in a tag; .*\); 1 kept/);
    const raw = readFileSync(join(dir, DATA_FILE));
    for (const secret of ['hunter2', 'ABCDEFGHIJKLMNOPQRST', 'abcdef1234567', 'AKIAIOSFODNN7EXAMPLE', 'akiaiosfodnn7example']) {
      assert.equal(raw.includes(secret), false, secret);
      assert.ok(!imp.stderr.includes(secret));
    }
    assert.deepEqual((await q('show', '--raw')).stdout.trim().split('\n').map((l) => (JSON.parse(l) as { text: string }).text), ['hello', 'kept']);
  });

  it('every memory command honours --memory-dir', async () => {
    const home = tempDir('quackd-mem-cli-');
    const dir = join(home, 'elsewhere');
    const env = { QUACKD_HOME: home, QUACKD_MEMORY_DIR: '', EDITOR: 'true', VISUAL: '' };
    const q = (...args: string[]) => quackd(['memory', ...args, '--memory-dir', dir], { env });
    const add = await q('add', 'the charger is under the desk');
    assert.equal(add.code, 0, add.stderr);
    const id = /remembered (n-\w+)/.exec(add.stdout)?.[1] ?? '';
    const file = join(home, 'm.jsonl');
    writeFileSync(file, '{"text":"imported note"}\n');
    const checks: [string[], RegExp][] = [
      [['show'], /the charger is under the desk/],
      [['search', 'charger'], /the charger is under the desk/],
      [['export'], /the charger is under the desk/],
      [['import', file], /1 added/],
      [['edit'], /no changes/],
      [['doctor'], /integrity: 2 entries read and valid/],
      [['forget', id], /forgot/],
      [['clear', '--yes'], /cleared 1 entry/],
    ];
    for (const [args, want] of checks) {
      const r = await q(...args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stdout, want, args.join(' '));
    }
    assert.equal(existsSync(join(home, 'memory')), false);
  });

  it('edit writes the edited JSONL back; unchanged means no write', async () => {
    const { home, env } = setup();
    const q = (editor: string, ...args: string[]) => quackd(['memory', ...args], { env: { ...env, EDITOR: editor, VISUAL: '' } });
    await q('true', 'add', 'the ball is blue');
    await q('true', 'add', 'remove me');
    assert.match((await q('true', 'edit')).stdout, /no changes/);
    const script = join(home, 'ed.sh');
    const edit = `sed -i -e 's/the ball is blue/the ball is red/' -e '/remove me/d' "$1"\necho '{"text":"a note from the editor"}' >> "$1"\n`;
    // A garbled line writes nothing and keeps the person's edit, rather than delete an entry.
    writeFileSync(script, `#!/bin/sh\n${edit}echo 'broken' >> "$1"\n`, { mode: 0o755 });
    const garbled = await q(script, 'edit');
    assert.equal(garbled.code, 2);
    const kept = /your edit is kept in (\S+):/.exec(garbled.stderr)?.[1];
    assert.ok(kept !== undefined && readFileSync(kept, 'utf8').includes('broken'), garbled.stderr);
    assert.match(garbled.stderr, /skipped 1 line \(3: not JSON\); 2 kept; nothing written \(your edit is kept in .*: fix that line, then 'quackd memory edit --from /);
    assert.match((await q('true', 'show')).stdout, /remove me/);
    // The person fixes the kept file and applies it, with no editor.
    writeFileSync(kept, readFileSync(kept, 'utf8').replace('broken\n', ''));
    const r = await q('false', 'edit', '--from', kept);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /1 changed, 1 added, 1 removed/);
    assert.equal(existsSync(kept), false, 'the applied edit file is cleaned up');
    const shown = (await q('true', 'show')).stdout;
    assert.match(shown, /the ball is red/);
    assert.match(shown, /a note from the editor/);
    assert.doesNotMatch(shown, /remove me/);
    assert.equal((await q('false', 'edit')).code, 2);
  });

  it('imports a legacy <adapter>-<backend>.jsonl on first open and renames it', async () => {
    const { dir, q } = setup();
    await q('add', 'first');
    writeFileSync(join(dir, 'microduck-sim2d.jsonl'), '{"text":"from the old file"}\n');
    assert.match((await q('show')).stdout, /from the old file/);
    assert.equal(statSync(join(dir, 'microduck-sim2d.jsonl.imported')).isFile(), true);
    assert.equal((await q('show', '--raw')).stdout.trim().split('\n').length, 2);
  });
});

describe('notes are data on the screen too', () => {
  it('escape codes a model or a person stored are shown escaped by show, search, add and forget', async () => {
    const { q } = setup();
    const evil = 'ball near \u001b]0;PWNED\u0007\u001b[2J sofa';
    const add = await q('add', evil, '--tag', 'x\u001b[5m', '--topic', 'spot');
    assert.equal(add.code, 0, add.stderr);
    for (const r of [add, await q('show'), await q('search', 'ball sofa')]) {
      assert.ok(!r.stdout.includes('\u001b'), JSON.stringify(r.stdout));
      assert.match(r.stdout, /ball near \\x1b\]0;PWNED\\x07\\x1b\[2J sofa/);
    }
  });
});

describe('notes cannot forge what a person reads', () => {
  it('a bidi override or zero-width character in a note is shown escaped by show and search', async () => {
    const { q } = setup();
    // On a terminal, U+202E would show "ball near the sofa" reversed after it, e.g. to hide a word.
    const evil = 'ball near the \u202eafos\u202c\u200b door ü 日本 👩‍💻';
    assert.equal((await q('add', evil)).code, 0);
    for (const r of [await q('show'), await q('search', 'ball door')]) {
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stdout, /[\u202e\u202c\u200b]/);
      assert.ok(r.stdout.includes('ball near the \\u{202e}afos\\u{202c}\\u{200b} door ü 日本 👩‍💻'), r.stdout);
    }
  });

  it("the warning about an imported line's body shows the body escaped", async () => {
    const { home, q } = setup();
    const file = join(home, 'm.jsonl');
    writeFileSync(file, `${JSON.stringify({ text: 'a note', body: '\u001b[31mx\u0007' })}\n${JSON.stringify({ text: 'kept' })}\n`);
    const r = await q('import', file);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /(?!\n)\p{Cc}/u);
    assert.match(r.stderr, /skipped 1 line \(1: body "\\x1b\[31mx\\x07" is not an adapter:backend key\); 1 kept/);
  });
});

describe("the caller's environment", () => {
  it('no QUACKD_* variable of the caller reaches a test\'s child: each test sets what it depends on', async () => {
    const decoy = join(tempDir(), 'decoy');
    const saved = { dir: process.env['QUACKD_MEMORY_DIR'], provider: process.env['QUACKD_PROVIDER'] };
    process.env['QUACKD_MEMORY_DIR'] = decoy;
    process.env['QUACKD_PROVIDER'] = 'nonsense';
    try {
      const home = tempDir();
      assert.equal((await quackd(['memory', 'add', 'lands in QUACKD_HOME'], { env: { QUACKD_HOME: home } })).code, 0);
      assert.equal(existsSync(decoy), false);
      assert.match((await quackd(['memory', 'show', '--memory-dir', join(home, 'memory')], { env: { QUACKD_HOME: home } })).stdout, /lands in QUACKD_HOME/);
      assert.equal((await quackd(['run', 'hello-world', '--no-memory'], { env: { QUACKD_HOME: home } })).code, 0);
    } finally {
      for (const [name, value] of [['QUACKD_MEMORY_DIR', saved.dir], ['QUACKD_PROVIDER', saved.provider]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});

describe('import keeps each body its own', () => {
  it('without --robot, exported lines go back to the body they name; with it, to that body', async () => {
    const { home, q } = setup();
    await q('add', 'serial note', '--robot', 'microduck:jsonrpc');
    const file = join(home, 'm.jsonl');
    writeFileSync(file, (await q('export', '--robot', 'microduck:jsonrpc')).stdout);
    await q('clear', '--yes', '--robot', 'microduck:jsonrpc');
    const back = await q('import', file);
    assert.match(back.stdout, /imported .* into microduck:jsonrpc: 1 added/);
    assert.doesNotMatch((await q('show')).stdout, /serial note/);
    assert.match((await q('show', '--robot', 'microduck:jsonrpc')).stdout, /serial note/);
  });

  it('names the lines of a body that is neither this quackd\'s nor the fleet\'s, and imports the rest', async () => {
    const { home, q } = setup();
    const file = join(home, 'odd.jsonl');
    writeFileSync(file, '{"text":"for a typo","body":"microduck:sim3d"}\n{"text":"for the sim"}\n');
    const r = await q('import', file);
    assert.equal(r.code, 0);
    assert.match(r.stderr, /skipped 1 line \(1: body "microduck:sim3d" is no body of this quackd \(did you mean "microduck:sim2d"\?\)\); 1 kept/);
    assert.match((await q('show')).stdout, /for the sim/);
    assert.doesNotMatch((await q('show')).stdout, /for a typo/);
  });
});
