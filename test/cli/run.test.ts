import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { quackd } from '../helpers/quackd.js';
import { writeDuck } from '../helpers/ducks.js';
import { tempDir } from '../helpers/tmp.js';

function home(): { QUACKD_HOME: string } {
  return { QUACKD_HOME: tempDir('quackd-home-') };
}

describe('quackd run, as a user runs it', () => {
  it('runs hello-world: header, one line a step, the outcome, exit 0', async () => {
    const env = home();
    const r = await quackd(['run', 'hello-world'], { env });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.shift(), 'memory: nothing yet (microduck:sim2d)');
    assert.match(lines[0]!, /^hello-world on microduck:sim2d · pilot fake · budget 3 steps, 5 calls, 30 s$/);
    assert.match(lines[1]!, /^ {2}1 {2}quack +quack!$/);
    assert.match(lines.at(-1)!, /^OK success — I quacked hello\. \(quacks 1 ≥ 1\) · 1 step, 2 calls, \d+\.\d s · transcript \d{8}-\d{6}-hello-world$/);
    assert.equal(readdirSync(join(env.QUACKD_HOME, 'transcripts')).length, 1);
  });

  it('runs find-and-kick to a verified success, and --json prints the outcome for scripts', async () => {
    const env = home();
    const r = await quackd(['run', 'find-and-kick', '--seed', '3', '--json'], { env });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.equal(out['outcome'], 'success');
    assert.match(String(out['reason']), /ball_displaced_m 0\.\d+ ≥ 0\.3/);
    assert.equal(out['robot'], 'microduck:sim2d');
    const transcript = readFileSync(String(out['transcript']), 'utf8');
    assert.ok(transcript.includes('"type":"end"'));
  });

  it('exits 1 when a budget runs out, saying which', async () => {
    const r = await quackd(['run', 'find-and-kick', '--seed', '1', '--steps', '2'], { env: home() });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /FAIL budget — 2 steps spent/);
  });

  it('runs an ad-hoc --goal with the body\'s verbs', async () => {
    const r = await quackd(['run', '--goal', 'say hello to the cat', '--json'], { env: home() });
    assert.equal(r.code, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { duck: string }).duck, 'goal');
  });

  it('--dry-run marks every result, reaches nothing and saves nothing but its transcript', async () => {
    const env = home();
    const r = await quackd(['run', 'find-and-kick', '--dry-run'], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /· dry run$/m);
    const steps = r.stdout.split('\n').filter((l) => /^ +\d+ {2}/.test(l));
    assert.ok(steps.length >= 3);
    for (const s of steps) assert.match(s, /\(dry run: not sent\)/);
    assert.match(r.stdout, /success \(dry run: nothing saved\)/);
    // No episode and no note: the robot's memory is as empty as before.
    const raw = await quackd(['memory', 'show', '--raw'], { env });
    assert.equal(raw.code, 0, raw.stderr);
    assert.equal(raw.stdout.trim(), '');
  });

  it('denies a gated verb without a TTY, and allows it with --yes', async () => {
    const dir = tempDir();
    const path = writeDuck(dir, 'gated', 'verbs: [quack]\nconfirm: [quack]\nbudgets: { llm_calls: 3 }\nsuccess_when: quacks >= 1');
    const denied = await quackd(['run', path], { env: home() });
    assert.equal(denied.code, 1);
    assert.match(denied.stdout, /^ {5}quack +\(denied: needs confirmation; no terminal to ask, --yes to allow\)$/m);
    const allowed = await quackd(['run', path, '--yes'], { env: home() });
    assert.equal(allowed.code, 0, allowed.stdout);
    assert.match(allowed.stdout, /^ {2}1 {2}quack +quack!$/m);
  });
});

describe('quackd errors: one line, the place, exit 2', () => {
  it('a malformed duck names the file, line and field', async () => {
    const dir = tempDir();
    const path = writeDuck(dir, 'typo', 'robot: microduck:sim2d\nverbs:\n  - kik');
    const r = await quackd(['run', path], { env: home() });
    assert.equal(r.code, 2);
    assert.equal(r.stdout.trim(), '');
    assert.equal(r.stderr.trim(), `quackd: ${path}:4: verbs: "kik" is not a verb of microduck:sim2d (did you mean "kick"?)`);
  });

  it('an unknown body, an unknown duck, a missing file, a bad flag', async () => {
    const env = home();
    const cases: [string[], RegExp][] = [
      [['run', 'hello-world', '--robot', 'microduck:sim3d'], /^quackd: unknown body "microduck:sim3d" \(did you mean "microduck:sim2d"\?\)/],
      [['run', 'helo-world'], /^quackd: no duck named "helo-world" \(did you mean "hello-world"\?\)/],
      [['run', './nope.duck'], /^quackd: \.\/nope\.duck: no such file$/m],
      [['run', 'hello-world', '--sped', '3'], /^quackd: run: unknown option --sped \(did you mean "--seed"\?\)/],
      [['run', 'hello-world', '--seed', 'x'], /^quackd: --seed: "x" is not a whole number from 0 to 4294967295/],
      [['run', 'hello-world', '--seconds', '3000000'], /^quackd: --seconds: "3000000" is not a number from 1 to 86400/],
      [['run'], /^quackd: run: name a duck or give --goal/],
      [['fly'], /^quackd: unknown command "fly"/],
    ];
    for (const [args, pattern] of cases) {
      const r = await quackd(args, { env });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, pattern);
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line for ${args.join(' ')}`);
    }
  });
});

describe('quackd help, version, ducks, bodies, transcripts', () => {
  it('--help and --version', async () => {
    const help = await quackd(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /usage: quackd <command>/);
    assert.match(help.stdout, /exit codes: 0 success · 1 /);
    const runHelp = await quackd(['run', '--help']);
    assert.equal(runHelp.code, 0);
    assert.match(runHelp.stdout, /quackd run find-and-kick/);
    const version = await quackd(['--version']);
    assert.match(version.stdout.trim(), /^\d+\.\d+\.\d+$/);
  });

  it('ducks lists the starters; bodies lists sim2d as the default', async () => {
    const ducks = await quackd(['ducks'], { env: home() });
    assert.match(ducks.stdout, /^find-and-kick +starter +Find the ball in the living room/m);
    assert.match(ducks.stdout, /^hello-world +starter +A smoke test/m);
    const bodies = await quackd(['bodies', '--json']);
    const list = JSON.parse(bodies.stdout) as { key: string; default: boolean }[];
    assert.ok(list.some((b) => b.key === 'microduck:sim2d' && b.default));
  });

  it('transcript list and show last', async () => {
    const env = home();
    assert.equal((await quackd(['run', 'hello-world'], { env })).code, 0);
    const list = await quackd(['transcript', 'list'], { env });
    assert.match(list.stdout, /^\d{8}-\d{6}-hello-world {2}success/m);
    const show = await quackd(['transcript', 'show', 'last', '--frames'], { env });
    assert.equal(show.code, 0);
    assert.match(show.stdout, /start {2}hello-world on microduck:sim2d/);
    assert.match(show.stdout, /step 1 {2}quack: ok — quack!/);
    assert.match(show.stdout, /\+-{25}\+/);
    assert.match(show.stdout, /end {4}success/);
    const none = await quackd(['transcript', 'show', 'nope'], { env });
    assert.equal(none.code, 2);
  });
});

describe('quackd config check', () => {
  it('shows the effective settings and where each came from, never a key', async () => {
    const env = { QUACKD_HOME: tempDir('quackd-home-'), QUACKD_MODEL: 'qwen2.5-coder:7b', OPENAI_API_KEY: 'sk-test-config-check-0123456789' };
    const r = await quackd(['config', 'check', '--provder', 'openai'], { env });
    assert.equal(r.code, 2, 'unknown flag is a usage error');
    assert.match(r.stderr, /unknown option --provder \(did you mean "--provider"\?\)/);
    const ok = await quackd(['config', 'check'], { env: { ...env, QUACKD_PROVIDER: 'openai' } });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /config file {2}.*config\.yaml {2}\(absent: built-in defaults\)/);
    assert.match(ok.stdout, /provider +openai {2}\(QUACKD_PROVIDER\)/);
    assert.match(ok.stdout, /model +qwen2\.5-coder:7b {2}\(QUACKD_MODEL\)/);
    assert.match(ok.stdout, /api key +found \(OPENAI_API_KEY\)/);
    assert.ok(!ok.stdout.includes(env.OPENAI_API_KEY));
  });

  it('every setting says where it came from: flag, variable, config file line, or default', async () => {
    const home = tempDir('quackd-home-');
    const mem = tempDir('quackd-mem-');
    writeFileSync(join(home, 'config.yaml'), 'pilot:\n  timeout_s: 45\n  retries: 5\n');
    const fromFile = await quackd(['config', 'check'], { env: { QUACKD_HOME: home } });
    assert.equal(fromFile.code, 0, fromFile.stderr);
    assert.match(fromFile.stdout, /^ {2}timeout +45 s {2}\(pilot\.timeout_s in .*config\.yaml\)$/m);
    assert.match(fromFile.stdout, /^ {2}retries +5 {2}\(pilot\.retries in .*config\.yaml\)$/m);
    assert.match(fromFile.stdout, /^ {2}provider +fake {2}\(default\)$/m);
    assert.match(fromFile.stdout, /^ {2}memory +\S+\/memory {2}\(QUACKD_HOME\)$/m);
    assert.match(fromFile.stdout, /^ {2}memory wait +open 10 s .* {2}\(built in\)$/m);
    // A variable beats the file, and a flag beats both.
    const r = await quackd(['config', 'check', '--timeout', '30', '--json'], { env: { QUACKD_HOME: home, QUACKD_RETRIES: '1', QUACKD_MEMORY_DIR: mem } });
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { paths: Record<string, { value: string; from: string }>; pilot: Record<string, { value: unknown; from: string }> };
    assert.deepEqual(report.pilot['timeoutS'], { value: 30, from: '--timeout' });
    assert.deepEqual(report.pilot['retries'], { value: 1, from: 'QUACKD_RETRIES' });
    assert.deepEqual(report.paths['memory'], { value: mem, from: 'QUACKD_MEMORY_DIR' });
    assert.deepEqual(report.paths['transcripts'], { value: join(home, 'transcripts'), from: 'QUACKD_HOME' });
    const flag = await quackd(['config', 'check', '--memory-dir', home], { env: { QUACKD_HOME: home, QUACKD_MEMORY_DIR: mem } });
    assert.match(flag.stdout, /^ {2}memory +\S+ {2}\(--memory-dir\)$/m);
  });

  it('reports a bad config file with its line, exit 2', async () => {
    const home = tempDir('quackd-home-');
    writeFileSync(join(home, 'config.yaml'), 'pilot:\n  provider: openai\n  retries: many\n');
    const r = await quackd(['config', 'check'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /config\.yaml:3/);
  });
});

describe('the fake pilot picks its script from the task', () => {
  it('a goal that is not about a ball gets a hello, not a kick', async () => {
    const r = await quackd(['run', '--goal', 'say hello to the cat', '--no-memory'], { env: { QUACKD_HOME: tempDir('quackd-home-') } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {2}1 {2}quack +quack!$/m);
    assert.doesNotMatch(r.stdout, /kick/);
  });
});

describe('quackd config check catches what a run would refuse', () => {
  it('an unknown provider, a missing model, a misspelt section', async () => {
    const home = tempDir('quackd-home-');
    const bad = await quackd(['config', 'check'], { env: { QUACKD_HOME: home, QUACKD_PROVIDER: 'opnai' } });
    assert.equal(bad.code, 2);
    assert.match(bad.stdout, /FAIL a run would stop here: QUACKD_PROVIDER: unknown provider "opnai"/);
    const noModel = await quackd(['config', 'check'], { env: { QUACKD_HOME: home, QUACKD_PROVIDER: 'openai', QUACKD_BASE_URL: 'http://127.0.0.1:1/v1' } });
    assert.equal(noModel.code, 2);
    assert.match(noModel.stdout, /QUACKD_PROVIDER is openai, which needs a model: pilot\.model in the config, QUACKD_MODEL or --model/);
    writeFileSync(join(home, 'config.yaml'), 'pilots:\n  provider: openai\n');
    const typo = await quackd(['config', 'check'], { env: { QUACKD_HOME: home } });
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /config\.yaml:1: \(top level\): unknown key "pilots"/);
  });
});
