/**
 * `quackd run` on microduck:jsonrpc when the body gets into trouble while the pilot thinks: the
 * host firmware on a pty stands in for the duck and a local OpenAI-compatible server for the
 * model, so the run can be caught waiting for the model when the link dies or the firmware's
 * watchdog fires. Also: an ad-hoc --goal on a real body keeps its gates and says its success is
 * unverified.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { TranscriptLine } from '../../src/transcript/events.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { quackd } from '../helpers/quackd.js';
import { writeDuck } from '../helpers/ducks.js';
import { openaiToolCalls, startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { tempDir } from '../helpers/tmp.js';
import { Rig, missingTools, sleep } from './rig.js';

interface Run extends CliResult {
  readonly transcript: TranscriptLine[];
}

const call = (name: string, args: Record<string, unknown> = {}) => openaiToolCalls([{ name, arguments: JSON.stringify(args) }]);

async function run(server: LlmServer, rig: Rig, args: readonly string[], onSpawn?: (child: ChildProcess) => void): Promise<Run> {
  const home = tempDir('quackd-trouble-');
  const argv = ['run', ...args, '--robot', 'microduck:jsonrpc', '--port', rig.hostPath, '--provider', 'openai', '--base-url', `${server.url}/v1`, '--model', 'm', '--timeout', '60'];
  const options = { env: { QUACKD_HOME: home, OPENAI_API_KEY: 'test-key' }, timeoutMs: 30_000 };
  // A test that signals quackd itself (SIGSTOP) needs it in a process of its own.
  const r = onSpawn !== undefined ? await runCli(argv, { ...options, onSpawn }) : await quackd(argv, options);
  const dir = join(home, 'transcripts');
  const files = readdirSync(dir);
  assert.equal(files.length, 1, `one transcript (stderr: ${r.stderr})`);
  const raw = readFileSync(join(dir, files[0]!), 'utf8');
  return { ...r, transcript: raw.trim().split('\n').map((l) => JSON.parse(l) as TranscriptLine) };
}

const events = <T extends TranscriptLine['type']>(r: Run, type: T) => r.transcript.filter((e): e is Extract<TranscriptLine, { type: T }> => e.type === type);

/** Calls `act` once the server has seen `n` requests (the pilot is waiting for the model). */
function whenRequests(server: LlmServer, n: number, act: () => void): void {
  const poll = setInterval(() => {
    if (server.requests.length < n) return;
    clearInterval(poll);
    act();
  }, 10);
}

describe('quackd run on microduck:jsonrpc, trouble while the pilot waits', { skip: missingTools() }, () => {
  let server: LlmServer;
  let rig: Rig | undefined;
  before(async () => {
    server = await startLlmServer();
  });
  after(async () => server.close());
  beforeEach(async () => {
    server.requests.splice(0);
    await rig?.cleanup();
    rig = await Rig.start();
  });
  after(async () => rig?.cleanup());

  /** hello-world with a model that never answers; `loseLink` runs once the model was asked. */
  async function whileTheModelWaits(loseLink: (r: Rig) => Promise<void>) {
    const r0 = rig!;
    server.reply({ kind: 'hang' });
    let lostAt = 0;
    const r = await run(server, r0, ['hello-world', '--seconds', '15'], () =>
      whenRequests(server, 1, () => {
        lostAt = performance.now();
        void loseLink(r0);
      }),
    );
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.ok(lostAt > 0 && performance.now() - lostAt < 6000, `took ${Math.round(performance.now() - lostAt)} ms after the link was lost`);
    return r;
  }

  it('a firmware that goes silent ends the run at once: exit 3, one line, body_stop not ok', async () => {
    const r = await whileTheModelWaits((r0) => r0.killFirmware());
    const last = r.stdout.trim().split('\n').at(-1) ?? '';
    assert.match(last, /^FAIL error — the firmware on .* went silent \(no state for \d+ ms and no answer to get_state\); its watchdog cuts torque · 0 steps/);
    const stop = events(r, 'body_stop')[0];
    assert.equal(stop?.ok, false, 'a dead link recorded as a clean stop');
    assert.match(stop?.error ?? '', /lost|down|stopped answering/);
    assert.equal(events(r, 'trouble')[0]?.kind, 'link-lost');
    assert.equal(events(r, 'end')[0]?.outcome, 'error');
  });

  it('an unplugged port ends the run at once: exit 3, body_stop says the link is down', async () => {
    const r = await whileTheModelWaits((r0) => r0.unplug());
    assert.match(r.stdout, /^FAIL error — serial link to .* lost; the firmware's watchdog cuts torque within \d+ ms, and quackd sends torque off once the link is back · 0 steps/m);
    const stop = events(r, 'body_stop')[0];
    assert.equal(stop?.ok, false);
    assert.match(stop?.error ?? '', /^serial link to .* is down: torque off not sent/);
  });

  it('a watchdog fault while the pilot waits (quackd stopped for 1.5 s) ends the run: exit 3, never a success', async () => {
    // A watchdog of 500 ms, not the default 200: on a loaded 2-core machine heartbeats are seen
    // 110-390 ms apart (README), and a fault during the torque verb itself is another test's case.
    await rig?.cleanup();
    rig = await Rig.start(['--watchdog-ms', '500']);
    const dir = tempDir();
    const duck = writeDuck(dir, 'hold', 'robot: microduck:jsonrpc\nverbs: [torque, quack]\nbudgets: { seconds: 15 }\nsuccess_when: quacks >= 0');
    // Torque on (the watchdog only guards a body that holds), then a model that answers late
    // with a success: today's quackd would believe it.
    server.reply(call('torque', { on: true }), { kind: 'hang' });
    const r = await run(server, rig!, [duck], (child) =>
      whenRequests(server, 2, () => {
        // Every heartbeat stops with quackd: the firmware's 500 ms watchdog cuts torque.
        child.kill('SIGSTOP');
        void sleep(1500).then(() => child.kill('SIGCONT'));
      }),
    );
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.match(r.stdout, /^FAIL error — firmware fault \(watchdog\): no heartbeat within the watchdog period: torque off · 1 step/m);
    assert.deepEqual(
      events(r, 'trouble').map((e) => e.kind),
      ['fault'],
    );
    assert.equal(events(r, 'body_stop')[0]?.ok, true, 'the link is up: torque off was confirmed');
  });
});

describe('quackd run --goal on microduck:jsonrpc', { skip: missingTools() }, () => {
  let server: LlmServer;
  let rig: Rig;
  before(async () => {
    server = await startLlmServer();
    rig = await Rig.start(['--watchdog-ms', '5000']);
  });
  after(async () => {
    await server.close();
    await rig?.cleanup();
  });

  it('asks before a motion verb (denied without a terminal) and calls its success unverified', async () => {
    server.reply(call('torque', { on: true }), call('declare_success', { reason: 'I am holding still.' }));
    const r = await run(server, rig, ['--goal', 'hold your pose']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^ {5}torque on +\(denied: needs confirmation; no terminal to ask, --yes to allow\)$/m);
    assert.equal(events(r, 'verb_result').length, 0, 'torque reached the body without a yes');
    assert.deepEqual(events(r, 'start')[0]?.confirm, ['torque', 'walk', 'turn', 'kick']);
    assert.match(r.stdout, /^OK success — I am holding still\. \(unverified: nothing measured it\)/m);
  });

  it('--yes opens the gate', async () => {
    server.requests.splice(0);
    server.reply(call('torque', { on: true }), call('declare_success', { reason: 'Holding.' }));
    const r = await run(server, rig, ['--goal', 'hold your pose', '--yes']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^ {2}1 {2}torque on +torque on: holding the current pose$/m);
    assert.deepEqual(events(r, 'gate').map((g) => g.how), ['yes']);
  });
});
