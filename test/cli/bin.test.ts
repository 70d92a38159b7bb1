/**
 * The thin layer: the built bin (`node dist/quackd.cjs`) as a user starts it. Everything else about
 * the commands is tested in-process (test/helpers/quackd.ts); this checks what only a real
 * process shows: the exit code the shell sees, the streams, the version, a whole run end to end.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { childEnv, outputOf, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

describe('the quackd bin', () => {
  it('runs hello-world end to end: the step, the outcome, a transcript on disk, exit 0', async () => {
    const home = tempDir('quackd-bin-');
    const r = await runCli(['run', 'hello-world'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {2}1 {2}quack +quack!$/m);
    assert.match(r.stdout, /^OK success — I quacked hello\./m);
    assert.equal(r.stderr, '');
    assert.equal(readdirSync(join(home, 'transcripts')).length, 1);
  });

  it('--version prints the package version; no command prints usage on stdout and exits 2', async () => {
    const v = await runCli(['--version']);
    assert.equal(v.code, 0);
    assert.equal(v.stdout, `${version}\n`);
    const none = await runCli([]);
    assert.equal(none.code, 2);
    assert.match(none.stdout, /^usage: quackd <command>/m);
  });

  it('an error is one line on stderr with the exit code of its kind (input: 2)', async () => {
    const r = await runCli(['run', 'no-such-duck'], { env: { QUACKD_HOME: tempDir('quackd-bin-') } });
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^quackd: no duck named "no-such-duck".*\n$/);
  });

  it('health: a failing check is exit 1 for the shell, and the process ends with onnxruntime and its sessions loaded', async () => {
    const home = tempDir('quackd-bin-');
    writeFileSync(join(home, 'config.yaml'), `robots:\n  twin:\n    body: microduck:mujoco\n    policies:\n      walk: ${join(home, 'nowhere')}\n`);
    const r = await runCli(['health', '--robot', 'twin'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^policies +fail +walk: .*nowhere: no such policy folder/m);
    assert.match(r.stdout, /^policy runtime +ok +onnxruntime-node /m);
  });

  it('a command left waiting on nothing (a promise no handle will settle) fails with one line, not a silent exit 0', async () => {
    // The bin around a command whose promise an unref'd timer was to settle: the loop empties first.
    const bin = new URL('../../src/cli/bin.ts', import.meta.url).href;
    const script = `import { startBin } from ${JSON.stringify(bin)}; startBin(() => new Promise((resolve) => setTimeout(() => resolve(0), 60_000).unref()));`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const r = await outputOf(child);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /^quackd: internal error: the command stopped with nothing left to wait on, before it finished; this is a bug\n$/);
    // The same bin around a command that settles: its code, no line.
    const fine = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script.replace('.unref()', '').replace('60_000', '10')], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const ok = await outputOf(fine);
    assert.deepEqual([ok.code, ok.stderr], [0, '']);
  });
});
