/**
 * What a careless or hostile input must not do to a user's terminal or a run: forge output,
 * leak a key, crash on an odd file system, hijack a duck name, or be silently ignored.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, type CliResult } from '../helpers/cli.js';
import { quackd } from '../helpers/quackd.js';
import { writeDuck } from '../helpers/ducks.js';
import { openaiToolCalls, startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { tempDir } from '../helpers/tmp.js';
import { aliasBomb } from '../helpers/yaml.js';

const KEY = 'sk-proj-HARDENINGtest0123456789abcdef';

describe('model text on the screen', () => {
  let server: LlmServer;
  before(async () => {
    server = await startLlmServer();
  });
  after(async () => server.close());

  it('a key the model echoes back is redacted from stdout and --json; control characters are escaped', async () => {
    const forged = `done\n✔ success — ball displaced 9 m\u001b[31m key ${KEY}`;
    for (const json of [false, true]) {
      server.reply(openaiToolCalls([{ name: 'quack', arguments: '{}' }]), openaiToolCalls([{ name: 'declare_success', arguments: JSON.stringify({ reason: forged }) }]));
      const args = ['run', 'hello-world', '--provider', 'openai', '--base-url', `${server.url}/v1`, '--model', 'm', '--no-memory', ...(json ? ['--json'] : [])];
      const r = await quackd(args, { env: { QUACKD_HOME: tempDir(), OPENAI_API_KEY: KEY } });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.ok(!r.stdout.includes(KEY), 'the key reached stdout');
      assert.ok(!r.stdout.includes('\u001b[31m'), 'a model wrote raw escape codes to the terminal');
      if (!json) {
        assert.equal(r.stdout.split('\n').filter((l) => l.startsWith('✔') || l.startsWith('OK')).length, 1, 'a forged outcome line');
        assert.match(r.stdout, /done\\x0a✔ success — ball displaced 9 m\\x1b\[31m key \[redacted\]/);
      }
    }
  });
});

describe('hostile files are one printable line, exit 2', () => {
  const oneLine = (r: CliResult, pattern: RegExp): void => {
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.equal(r.stderr.split('\n').length, 2, r.stderr); // one line and its newline
    assert.match(r.stderr, pattern);
    assert.doesNotMatch(r.stderr, /internal error|(?!\n)[\p{Cc}\p{Cf}]/u);
  };

  it('an alias bomb in a .duck', async () => {
    const path = writeDuck(tempDir(), 'laughs', `verbs: [quack]\n${aliasBomb()}`);
    const r = await quackd(['run', path, '--no-memory'], { env: { QUACKD_HOME: tempDir() } });
    oneLine(r, /^quackd: .*laughs\.duck:6: l3(\.\d+)*: YAML aliases expand too far/);
  });

  it('an alias bomb in config.yaml', async () => {
    const home = tempDir();
    writeFileSync(join(home, 'config.yaml'), aliasBomb());
    oneLine(await quackd(['config', 'check'], { env: { QUACKD_HOME: home } }), /^quackd: .*config\.yaml:4: l3(\.\d+)*: YAML aliases expand too far/);
  });

  it('escape and bell characters in an unknown key of a .duck or config.yaml', async () => {
    const path = writeDuck(tempDir(), 'keys', 'verbs: [quack]\n"x\\e]0;PWNED\\a\\e[2J": 1');
    oneLine(await quackd(['run', path, '--no-memory'], { env: { QUACKD_HOME: tempDir() } }), /keys\.duck:3: front matter: unknown field "x\\x1b\]0;PWNED\\x07\\x1b\[2J"$/m);
    const home = tempDir();
    writeFileSync(join(home, 'config.yaml'), 'pilot:\n  "x\\e]0;PWNED\\a": 1\n');
    oneLine(await quackd(['config', 'check'], { env: { QUACKD_HOME: home } }), /config\.yaml:2: pilot: unknown key "x\\x1b\]0;PWNED\\x07"$/m);
  });
});

describe('bounded inputs are refused in one line that names the limit', () => {
  const refused = (r: CliResult, pattern: RegExp): void => {
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.equal(r.stderr.split('\n').length, 2, r.stderr);
    assert.match(r.stderr, pattern);
    assert.doesNotMatch(r.stderr, /Maximum call stack|internal error/);
  };

  it('a duck over 1 MB, unread', async () => {
    const path = writeDuck(tempDir(), 'huge', 'verbs: [quack]', `# Huge\n\n1. quack\n${'quack quack quack\n'.repeat(120_000)}`);
    refused(await quackd(['run', path, '--no-memory'], { env: { QUACKD_HOME: tempDir() } }), /^quackd: .*huge\.duck: 2\.1 MB, over the 1 MB limit for a duck$/m);
  });

  it('a duck and a config nested 10,000 levels deep, flow and block', async () => {
    const flow = writeDuck(tempDir(), 'deep', `verbs: [quack]\nbudgets: ${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    refused(await quackd(['run', flow, '--no-memory'], { env: { QUACKD_HOME: tempDir() } }), /^quackd: .*deep\.duck:3: front matter is nested more than 64 levels deep \(the nesting limit\)$/m);
    const block = writeDuck(tempDir(), 'stairs', `verbs: [quack]\nbudgets:\n${Array.from({ length: 100 }, (_, i) => `${' '.repeat(i)}a${i}:`).join('\n')}\n${' '.repeat(100)}${'- '.repeat(10_000)}x`);
    refused(await quackd(['run', block, '--no-memory'], { env: { QUACKD_HOME: tempDir() } }), /stairs\.duck:\d+: front matter is nested more than 64 levels deep \(the nesting limit\)$/m);
    const home = tempDir();
    writeFileSync(join(home, 'config.yaml'), `pilot:\n  provider: ${'{a: '.repeat(10_000)}1${'}'.repeat(10_000)}\n`);
    refused(await quackd(['config', 'check'], { env: { QUACKD_HOME: home } }), /^quackd: .*config\.yaml:2: nested more than 64 levels deep \(the nesting limit\)$/m);
  });

  it('a config file over 1 MB, unread', async () => {
    const home = tempDir();
    writeFileSync(join(home, 'config.yaml'), `# ${'x'.repeat(1.5 * 2 ** 20)}\n`);
    refused(await quackd(['config', 'check'], { env: { QUACKD_HOME: home } }), /^quackd: .*config\.yaml: 1\.5 MB, over the 1 MB limit for a config file$/m);
  });
});

describe('transcript lines that are not records', () => {
  const strays = ['null', '5', '[1,2,3]', '"text"', '{"no":"type"}'];
  const home = (): { home: string; id: string } => {
    const dir = tempDir();
    const id = '20261130-010203-strays';
    mkdirSync(join(dir, 'transcripts'));
    const t = '2026-11-30T01:02:03.000Z';
    const lines = [
      JSON.stringify({ t, run: id, type: 'start', duck: 'hello-world', body: 'microduck:sim2d', provider: 'fake', model: 'fake', dryRun: false, seed: 1, budgets: { steps: 3, llm_calls: 3, seconds: 10 }, verbs: ['quack'], confirm: [], quackd: '0', node: '20' }),
      ...strays,
      JSON.stringify({ t, run: id, type: 'end', outcome: 'success', reason: 'quacked', steps: 1, llmCalls: 1, seconds: 0.1 }),
    ];
    writeFileSync(join(dir, 'transcripts', `${id}.jsonl`), `${lines.join('\n')}\n`);
    return { home: dir, id };
  };

  for (const sub of ['show', 'follow']) {
    it(`transcript ${sub} skips null, 5, [1,2,3] and the like, and counts them`, async () => {
      const { home: dir, id } = home();
      const r = await quackd(['transcript', sub, id], { env: { QUACKD_HOME: dir }, timeoutMs: 10_000 });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.doesNotMatch(r.stdout + r.stderr, /Invalid Date|undefined|internal error/);
      assert.match(r.stdout, /quacked/);
      assert.equal(r.stderr, `quackd: ${strays.length} lines skipped in ${id}: not transcript records\n`);
    });
  }
});

describe('odd file systems and names', () => {
  it('a transcripts directory that cannot be written is one line, exit 3', async () => {
    const home = tempDir();
    writeFileSync(join(home, 'transcripts'), 'a file, not a directory');
    const r = await quackd(['run', 'hello-world', '--no-memory'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 3);
    assert.match(r.stderr, /^quackd: cannot write transcripts in .*transcripts \(not a directory\) \(check that QUACKD_HOME is a directory you can write\)\n$/);
  });

  it('a directory named like a transcript is not one', async () => {
    const home = tempDir();
    mkdirSync(join(home, 'transcripts', 'odd.jsonl'), { recursive: true });
    const r = await quackd(['transcript', 'list'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /no transcripts yet/);
  });

  it('a file or folder called hello-world in the current directory does not hijack the starter', async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'hello-world'));
    const r = await runCli(['run', 'hello-world', '--no-memory', '--json'], { env: { QUACKD_HOME: tempDir() }, cwd });
    assert.equal(r.code, 0, r.stderr);
  });
});

describe('flags that would be silently ignored are refused', () => {
  const cases: [string[], RegExp][] = [
    [['run', '--goal', '  '], /^quackd: run: --goal needs words/],
    [['run', 'hello-world', '--port', '/dev/ttyACM0'], /^quackd: run: --port is for a serial body; microduck:sim2d takes none/],
    [['run', 'hello-world', '--model', 'qwen'], /^quackd: run: --model is for a real pilot, but this run's pilot is the fake one \(add --provider openai or --provider anthropic\)/],
    [['run', 'hello-world', '--timeout', '3000000'], /^quackd: --timeout: "3000000" is not a number from 0\.1 to 3600/],
    [['transcript', 'list', '--limit', 'abc'], /^quackd: --limit: "abc" is not a whole number ≥ 1/],
  ];
  for (const [args, pattern] of cases) {
    it(args.join(' '), async () => {
      const r = await quackd(args, { env: { QUACKD_HOME: tempDir() } });
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stderr, pattern);
    });
  }

  it('a duck whose robot is unknown is refused at its robot line', async () => {
    const path = writeDuck(tempDir(), 'reachy', 'robot: reachy:mujoco\nverbs: [quack]');
    const r = await quackd(['run', path], { env: { QUACKD_HOME: tempDir() } });
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim(), `quackd: ${path}:2: robot: unknown body "reachy:mujoco" ('quackd bodies' lists them)`);
  });
});

describe('the fake pilot does not beg', () => {
  it('after a denied gate it declares failure once instead of asking until the budget is spent', async () => {
    const path = writeDuck(tempDir(), 'gated', 'verbs: [quack]\nconfirm: [quack]');
    const r = await quackd(['run', path, '--no-memory'], { env: { QUACKD_HOME: tempDir() } });
    assert.equal(r.code, 1);
    assert.equal(r.stdout.split('\n').filter((l) => l.includes('(denied')).length, 1);
    assert.match(r.stdout, /FAIL failure — I cannot go on: quack was denied: needs confirmation/);
  });
});

describe('a reader that goes away', () => {
  it('`quackd run … | head -1` still finishes the run: body stopped, transcript ended', async () => {
    const home = tempDir();
    const r = await runCli(['run', 'find-and-kick', '--no-memory'], {
      env: { QUACKD_HOME: home },
      onSpawn: (child) => child.stdout?.once('data', () => child.stdout?.destroy()),
    });
    assert.equal(r.code, 0, r.stderr);
    const list = await quackd(['transcript', 'show', 'last', '--json'], { env: { QUACKD_HOME: home } });
    const types = list.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { type: string }).type);
    assert.ok(types.includes('body_stop'));
    assert.equal(types.at(-1), 'end');
  });
});
