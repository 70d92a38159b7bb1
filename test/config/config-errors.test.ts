/**
 * config.yaml's and a .duck's mistakes as a robot builder makes them, read by the built CLI
 * (`quackd config check`, `quackd run`): a word where a number goes, a key written twice. Each is said on its line,
 * naming the field and what was written, never zod's or yaml's internal words ("received NaN",
 * "Map keys must be unique").
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

function home(config: string): string {
  const dir = tempDir('quackd-config-errors-');
  writeFileSync(join(dir, 'config.yaml'), config);
  return dir;
}

const check = (config: string) => runCli(['config', 'check'], { env: { QUACKD_HOME: home(config) } });

/** Each problem of config check's one line, without the file's directory. */
const problems = (stderr: string): string[] =>
  stderr
    .replace(/^quackd: /, '')
    .trim()
    .split('; ')
    .map((p) => p.replace(/^\S*\/config\.yaml/, 'config.yaml'));

describe('config.yaml: numbers', () => {
  it('a word, a yes, an empty value where a number goes: what was written and an example, on its line, for every number a robot takes', async () => {
    const r = await check(`# the bench ducks
robots:
  duck:
    body: microduck:feetech
    port: /dev/ttyUSB0
    bus_timeout_ms: soon
    baud: fast
    imu:
      bus: one
      address: ""
  bench:
    body: microduck:jsonrpc
    port: /dev/ttyACM0
    baud: true
  xl:
    body: microduck:dynamixel
    port: /dev/ttyUSB1
    baud: 1.5
    bus_timeout_ms: 0
  mini:
    body: reachy-mini:daemon
    timeout_s:
`);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.deepEqual(problems(r.stderr), [
      'config.yaml:7: robots.duck.baud: expected a whole number (e.g. 1000000), got "fast"',
      'config.yaml:6: robots.duck.bus_timeout_ms: expected a number (e.g. 10), got "soon"',
      'config.yaml:9: robots.duck.imu.bus: expected a whole number (e.g. 1), got "one"',
      'config.yaml:10: robots.duck.imu.address: expected a whole number (e.g. 0x28), got ""',
      'config.yaml:14: robots.bench.baud: expected a whole number (e.g. 1000000), got true',
      'config.yaml:18: robots.xl.baud: expected a whole number (e.g. 1000000), got 1.5',
      'config.yaml:19: robots.xl.bus_timeout_ms: expected a number above 0 (e.g. 10), got 0',
      'config.yaml:22: robots.mini.timeout_s: expected a number (e.g. 5), got nothing',
    ]);
  });

  it('a number written as text (quoted, or hex) still reads as that number', async () => {
    const dir = home('robots:\n  duck:\n    body: microduck:feetech\n    port: /dev/ttyUSB0\n    baud: "115200"\n    imu: { address: "0x29" }\n');
    const r = await runCli(['config', 'check', '--json'], { env: { QUACKD_HOME: dir } });
    assert.equal(r.code, 0, r.stderr);
    type Setting<T> = { value: T; from: string };
    const duck = (JSON.parse(r.stdout) as { robots: { name: string; settings: { baud: Setting<unknown>; imu: Setting<{ address: unknown }> } }[] }).robots.find((x) => x.name === 'duck');
    assert.equal(duck?.settings.baud.value, 115200);
    assert.equal(duck?.settings.imu.value.address, 0x29);
  });

  it('a plain number field of another section says what was written too', async () => {
    const r = await check('pilot:\n  provider: fake\n  timeout_s: soon\n');
    assert.equal(r.code, 2, r.stderr);
    assert.deepEqual(problems(r.stderr), ['config.yaml:3: pilot.timeout_s: expected a number, got "soon"']);
  });
});

describe('.duck files: numbers', () => {
  it('quackd run of a duck with a word, a fraction or a number out of range in its budgets says what was written and an example, as config.yaml does', async () => {
    const dir = tempDir('quackd-config-errors-');
    mkdirSync(join(dir, 'ducks'));
    const run = async (front: string): Promise<string> => {
      const duck = join(dir, 'ducks', 'numbers.duck');
      writeFileSync(duck, `---\nrobot: microduck:sim2d\nverbs: [quack]\n${front}\n---\n# Quack\n\n1. quack\n`);
      const r = await runCli(['run', duck, '--no-memory'], { env: { QUACKD_HOME: dir, QUACKD_PROVIDER: 'fake' } });
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stdout, '');
      return r.stderr.replace(`quackd: ${duck}`, 'numbers.duck');
    };
    assert.equal(await run('budgets:\n  steps: lots'), 'numbers.duck:5: budgets.steps: expected a whole number (e.g. 12), got "lots"\n');
    assert.equal(await run('budgets: { llm_calls: 2.5 }'), 'numbers.duck:4: budgets.llm_calls: expected a whole number (e.g. 20), got 2.5\n');
    assert.equal(await run('budgets:\n  seconds: 0'), 'numbers.duck:5: budgets.seconds: expected a number of at least 1 (e.g. 60), got 0\n');
    assert.equal(await run('budgets:\n  steps: true'), 'numbers.duck:5: budgets.steps: expected a whole number (e.g. 12), got true\n');
    assert.equal(await run('flock:\n  members: [microduck:sim2d]\n  plan: first-finder-kicks\n  seconds: soon'), 'numbers.duck:7: flock.seconds: expected a number (e.g. 60), got "soon"\n');
  });
});

describe('config.yaml and .duck files: keys', () => {
  it('config check names each key written twice, where it is and where it was first', async () => {
    const r = await check(`robots:
  duck:
    body: microduck:feetech
    port: /dev/ttyUSB0
    baud: 1000000
    baud: 115200
pilot: { provider: fake, "provider": openai }
`);
    assert.equal(r.code, 2, r.stderr);
    assert.deepEqual(problems(r.stderr), ['config.yaml:6: robots.duck.baud: written twice (first on line 5): keep one', 'config.yaml:7: pilot.provider: written twice (first on line 7): keep one']);
  });

  it('a key written twice before another YAML mistake is still named', async () => {
    const r = await check('robots:\n  duck:\n    body: microduck:feetech\n    port: /dev/ttyUSB0\n    port: [\n');
    assert.equal(r.code, 2, r.stderr);
    assert.deepEqual(problems(r.stderr), ['config.yaml:5: robots.duck.port: written twice (first on line 4): keep one']);
  });

  it('a list written as a key is one line, with no Node warning beside it', async () => {
    const r = await check('? [robots]\n: {}\n');
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^quackd: \S+config\.yaml:1: \(top level\): unknown key "\[ robots \]"[^\n]*\n$/);
  });

  it('quackd run of a duck with a field written twice names the field and both lines', async () => {
    const dir = tempDir('quackd-config-errors-');
    mkdirSync(join(dir, 'ducks'));
    const duck = join(dir, 'ducks', 'twice.duck');
    writeFileSync(duck, '---\ndescription: walk a little\nrobot: microduck:sim2d\nverbs: [walk]\nrobot: microduck:mujoco\n---\nWalk.\n');
    const r = await runCli(['run', duck], { env: { QUACKD_HOME: dir, QUACKD_PROVIDER: 'fake' } });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `quackd: ${duck}:5: robot: written twice (first on line 3): keep one\n`);
  });
});
