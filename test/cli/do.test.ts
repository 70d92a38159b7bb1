/**
 * `quackd do` and the script pilot as a user runs them, in-process with the CLI's own dispatcher:
 * one verb as a one-step run on sim2d and on the twin, arguments by position and by name, a bad
 * line refused in one line before anything opens, --dry-run and --json; `--provider script`
 * playing a duck's numbered lines (patrol), a failed line ending the run naming it, and a line that
 * is not a verb call refused with its file and line; a walk that falls says why on its outcome line
 * too, through the built CLI.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { TranscriptLine } from '../../src/transcript/events.js';
import { readTranscript } from '../../src/transcript/reader.js';
import { runCli } from '../helpers/cli.js';
import { writeDuck } from '../helpers/ducks.js';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';

const home = (): NodeJS.ProcessEnv => ({ QUACKD_HOME: tempDir('quackd-do-') });

/** The transcript a `--json` run wrote, by the path its outcome names. */
function transcriptOf(stdout: string): TranscriptLine[] {
  const outcome = JSON.parse(stdout) as { transcript: string };
  return readTranscript(outcome.transcript).lines;
}

describe('quackd do on microduck:sim2d', () => {
  it('walks 1 m as a one-step run with a transcript of its own', async () => {
    const env = home();
    const r = await quackd(['do', 'walk', '1.0'], { env });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^do on microduck:sim2d · pilot script · budget 1 step, 2 calls, 120 s$/m);
    assert.match(r.stdout, /^ {2}1 {2}walk 1\.00 +walked 1\.00 m/m);
    assert.match(r.stdout, /success — did walk 1\.0 .* · 1 step, 2 calls, .* transcript \d{8}-\d{6}-do$/m);
    const show = await quackd(['transcript', 'show', 'last'], { env });
    assert.match(show.stdout, /step 1 {2}walk 1\.00: ok — walked 1\.00 m/);
  });

  it('takes arguments by name (turn degrees=-90) and says what the verb did, as JSON with --json', async () => {
    const r = await quackd(['do', 'turn', 'degrees=-90', '--json'], { env: home() });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const outcome = JSON.parse(r.stdout) as { outcome: string; steps: number; duck: string };
    assert.deepEqual([outcome.outcome, outcome.steps, outcome.duck], ['success', 1, 'do']);
    const results = transcriptOf(r.stdout).filter((l) => l.type === 'verb_result');
    assert.deepEqual(results.map((l) => l.type === 'verb_result' && l.summary), ['turned 90° right; no ball in view']);
  });

  it('refuses a verb of another body (drive is the rovers\')', async () => {
    const r = await quackd(['do', 'drive', '1'], { env: home() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^quackd: do: "drive" is not a verb of microduck:sim2d/);
  });

  it('a verb that fails ends the run as a failure naming it (exit 1)', async () => {
    const r = await quackd(['do', 'kick', 'left'], { env: home() });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /failure — step 1 \(kick left\) failed: kicked left: missed/);
  });

  it('--dry-run sends nothing and marks the result', async () => {
    const env = home();
    const r = await quackd(['do', 'walk', '0.5', '--dry-run'], { env });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /· dry run$/m);
    assert.match(r.stdout, /^ {2}1 {2}walk 0\.50 +\(dry run: not sent\)$/m);
    assert.match(r.stdout, /success \(dry run: nothing saved\)/);
  });

  it('refuses a bad verb or bad arguments in one line before anything opens (exit 2)', async () => {
    const cases: [string[], string][] = [
      [['do', 'wlak', '1'], 'quackd: do: "wlak" is not a verb of microduck:sim2d (did you mean "walk"?)'],
      [['do', 'walk', 'fast'], 'quackd: do: "walk fast": walk takes metres, speed: metres: Invalid input: expected number, received string (e.g. quackd do walk 1.0, quackd do turn degrees=90)'],
      [['do', 'walk', '1', '0.3', '2'], 'quackd: do: "walk 1 0.3 2": walk takes metres, speed; "2" is one too many (e.g. quackd do walk 1.0, quackd do turn degrees=90)'],
      [['do', 'walk', '9'], 'quackd: do: "walk 9": walk takes metres, speed: metres: Too big: expected number to be <=3 (e.g. quackd do walk 1.0, quackd do turn degrees=90)'],
      [['do', 'walk', '-0.5'], 'quackd: do: "-0.5" reads as an option; a negative number goes after -- (e.g. quackd do walk -- -0.5, or quackd do walk metres=-0.5)'],
      [['do', 'quack', 'loud'], 'quackd: do: "quack loud": quack takes no arguments (e.g. quackd do walk 1.0, quackd do turn degrees=90)'],
      [['do', 'look', 'yaw=10'], 'quackd: do: "look" is not a verb of microduck:sim2d; its closest is "walk" (its verbs: search_scan, turn, walk, kick, quack, torque)'],
      [['do', 'walk', '1\n2. kick left'], 'quackd: do: an argument holds a control character (a newline?)'],
      [['do'], "quackd: do: name a verb, e.g. quackd do walk 1.0 ('quackd bodies' lists each body's verbs)"],
    ];
    for (const [args, line] of cases) {
      const env = home();
      const r = await quackd(args, { env });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stderr.trim(), line);
      assert.equal(r.stdout, '', 'nothing ran');
      const runs = await quackd(['transcript', 'list', '--json'], { env });
      assert.deepEqual(JSON.parse(runs.stdout), [], 'no transcript');
    }
  });

  it('walks backwards when the negative number comes after --', async () => {
    const r = await quackd(['do', 'walk', '--seed', '3', '--', '-0.3'], { env: home() });
    assert.match(r.stdout, /^ {2}1 {2}walk -0\.30 /m);
  });

  it('--help has an example', async () => {
    const r = await quackd(['do', '--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^ {2}quackd do walk 1\.0$/m);
  });
});

describe('--provider script', () => {
  it('plays patrol on sim2d line by line and verifies its success_when', async () => {
    const r = await quackd(['run', 'patrol', '--provider', 'script', '--no-memory'], { env: home() });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^patrol on microduck:sim2d · pilot script · /m);
    assert.match(r.stdout, /^ {2}1 {2}walk 0\.50 .*\n {2}2 {2}turn 180 +turned 180° left.*\n {2}3 {2}walk 0\.50 /m);
    assert.match(r.stdout, /success — played the 3 lines of the script \(tilt_deg 0 ≤ 30\) · 3 steps, 4 calls/);
  });

  it('the fake pilot (the default) plays a script duck as the script pilot does; prose is not a script', async () => {
    const r = await quackd(['run', 'patrol', '--no-memory'], { env: home() });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^patrol on microduck:sim2d · pilot fake/m);
    assert.match(r.stdout, /^ {2}1 {2}walk 0\.50 +walked 0\.50 m/m);
    assert.match(r.stdout, /^ {2}2 {2}turn 180 +turned 180° left/m);
    assert.match(r.stdout, /^OK success — played the 3 lines of the script/m);
    const hello = await quackd(['run', 'hello-world', '--no-memory'], { env: home() });
    assert.equal(hello.code, 0, hello.stdout + hello.stderr);
    assert.match(hello.stdout, /^ {2}1 {2}quack/m, 'prose is not a script: the fake pilot says hello');
  });

  it('refuses a duck with a line that is not a verb call, naming the file and line, before anything runs', async () => {
    const env = home();
    const dir = tempDir();
    const path = writeDuck(dir, 'beat', 'verbs: [walk, turn]', '# Beat\n\nA short beat.\n\n1. walk 0.5\n2. turn around\n3. walk 0.5\n');
    const r = await quackd(['run', path, '--provider', 'script'], { env });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.equal(r.stderr.trim(), `quackd: ${path}:9: "turn around" is not a verb call: turn takes degrees, rate: degrees: Invalid input: expected number, received string (a script line is a verb and its arguments, e.g. "1. walk 1.0" or "2. turn degrees=90")`);
    assert.equal(r.stdout, '');
    const other = writeDuck(dir, 'kicky', 'verbs: [walk]', '# Kicky\n\n1. walk 0.5\n2. kick left\n');
    const k = await quackd(['run', other, '--provider', 'script'], { env });
    assert.equal(k.code, 2);
    assert.match(k.stderr, new RegExp(`^quackd: ${other.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:7: "kick left" is not a verb call: "kick" is not one of this duck's verbs`));
    // The same duck with the fake pilot is prose to it, not a script: it is not refused.
    assert.notEqual((await quackd(['run', path, '--no-memory'], { env })).code, 2);
  });

  it('ends the run at a line whose verb failed, naming it, and plays nothing after it', async () => {
    const path = writeDuck(tempDir(), 'wall', 'verbs: [walk, quack]', '# Into the wall\n\n1. walk metres=-1\n2. quack\n');
    const r = await quackd(['run', path, '--provider', 'script', '--no-memory', '--json'], { env: home() });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const outcome = JSON.parse(r.stdout) as { outcome: string; reason: string; steps: number };
    assert.equal(outcome.outcome, 'failure');
    assert.match(outcome.reason, /^step 1 \(walk metres=-1\) failed: stopped after [\d.]+ m: blocked by the wall/);
    assert.equal(outcome.steps, 1, 'quack was never played');
  });
});

describe('the twin (microduck:mujoco)', () => {
  it('a walk that falls: the outcome line says why as the step line does (fell, and the tilt), not a bare "failed"', async () => {
    const env = home();
    writeFileSync(join(env['QUACKD_HOME'] ?? '', 'config.yaml'), 'robots:\n  weak:\n    body: microduck:mujoco\n    kp: 0.1\n');
    const r = await runCli(['do', 'walk', '0.3', '--robot', 'weak', '--yes'], { env });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const step = /^ {2}1 {2}walk 0\.30 +(walked .*: failed — fell .*)$/m.exec(r.stdout)?.[1];
    assert.ok(step !== undefined, r.stdout);
    assert.ok(r.stdout.includes(`failure — step 1 (walk 0.3) failed: ${step} · 1 step`), r.stdout);
  });

  it('quackd do walk 0.5 walks it, measured by the twin', async () => {
    const r = await quackd(['do', 'walk', '0.5', '--robot', 'microduck:mujoco', '--json'], { env: home(), timeoutMs: 120_000 });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const results = transcriptOf(r.stdout).filter((l) => l.type === 'verb_result');
    assert.equal(results.length, 1);
    const walked = results[0]?.type === 'verb_result' ? Number(results[0].data?.['walked_m']) : NaN;
    assert.ok(walked >= 0.4, `walked ${walked} m`);
  });

  it('plays patrol with --provider script: out, round and back, still upright', async () => {
    const r = await quackd(['run', 'patrol', '--robot', 'microduck:mujoco', '--provider', 'script', '--no-memory'], { env: home(), timeoutMs: 180_000 });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^ {2}2 {2}turn 180 +turned 1[6-9]\d° left/m);
    assert.match(r.stdout, /success — played the 3 lines of the script \(tilt_deg \d+ ≤ 30\)/);
  });
});
