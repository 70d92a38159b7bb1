/**
 * `quackd run` and `quackd transcript follow` when a service is running: the run goes through the
 * control socket (the service holds the robots), the terminal shows it as a local run, a gate is
 * asked on a terminal and answered through the socket, a busy robot and local-only flags are
 * refused in one line, Ctrl-C stops it; without a service, follow reads the transcript file.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { quackd as dispatch } from '../../src/cli/quackd.js';
import { createFakeProvider } from '../../src/pilot/providers/fake.js';
import type { Provider } from '../../src/pilot/providers/provider.js';
import { byText, cliUser } from '../../src/runtime/holder.js';
import { startService, type Serving } from '../../src/service/lifecycle.js';
import { readTranscript } from '../../src/transcript/reader.js';
import { runCli } from '../helpers/cli.js';
import { writeDuck } from '../helpers/ducks.js';
import { captured, quackd } from '../helpers/quackd.js';
import { scripted } from '../helpers/scripted-provider.js';

const CONFIG = 'robots:\n  den: { body: microduck:sim2d }\n';
const CAREFUL = 'robot: microduck:sim2d\nverbs: [quack]\nconfirm: [quack]\nbudgets: { steps: 3, llm_calls: 5, seconds: 30 }';

function makeHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'quackd-through-'));
  writeFileSync(join(home, 'config.yaml'), CONFIG);
  mkdirSync(join(home, 'ducks'));
  writeDuck(join(home, 'ducks'), 'careful-hello', CAREFUL);
  return home;
}

/** The pilot of the service's next run. */
let pilot: () => Provider = createFakeProvider;

async function waitFor(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

function gateWaiting(serving: Serving): Promise<void> {
  return new Promise((resolve) => {
    const off = serving.service.events.on('run:gate', (e) => (e.state === 'waiting' ? (off(), resolve()) : undefined));
  });
}

describe('quackd run through a running service', () => {
  let home: string;
  let serving: Serving;
  const env = (): NodeJS.ProcessEnv => ({ QUACKD_HOME: home });

  before(async () => {
    home = makeHome();
    serving = await startService({ env: { QUACKD_HOME: home }, pilot: () => Promise.resolve(pilot()) });
  });
  after(async () => {
    await serving?.stop('the test');
    rmSync(home, { recursive: true, force: true });
  });

  it('runs hello-world in the service, printed as a local run is', async () => {
    const r = await quackd(['run', 'hello-world', '--robot', 'den'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.match(lines[0] ?? '', /^memory: /);
    assert.match(lines[1] ?? '', /^hello-world on den \(microduck:sim2d\) · pilot fake · budget 3 steps, 5 calls, 30 s$/);
    assert.match(lines[2] ?? '', /^ {2}1 {2}quack +quack!$/);
    assert.match(lines.at(-1) ?? '', /^OK success — I quacked hello\. .* · transcript (\d{8}-\d{6}-hello-world)$/);
    const runId = /transcript (\S+)$/.exec(lines.at(-1) ?? '')?.[1];
    assert.equal(serving.service.status('den').lastOutcome?.runId, runId, 'the service ran it');
  });

  it('--json prints the outcome object, and a duck file of the caller travels as text', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'quackd-duckfile-'));
    try {
      const path = writeDuck(elsewhere, 'mine', 'robot: microduck:sim2d\nverbs: [quack]\nbudgets: { steps: 2, llm_calls: 4, seconds: 20 }');
      const r = await quackd(['run', path, '--robot', 'den', '--json'], { env: env() });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, '', 'a memory line is for the screen, as in a local --json run');
      const out = JSON.parse(r.stdout) as Record<string, unknown>;
      assert.equal(out['outcome'], 'success');
      assert.equal(out['duck'], 'mine');
      assert.equal(out['robot'], 'den', "the robot's name, as the header says it");
      assert.equal(out['body'], 'microduck:sim2d');
      assert.equal(out['run'], serving.service.status('den').lastOutcome?.runId);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('asks a gate on a terminal and answers it through the socket', async () => {
    const c = captured({ input: 'y\n', env: env() });
    const stdin = Object.assign(c.invocation.stdin, { isTTY: true });
    const code = await dispatch(['run', 'careful-hello', '--robot', 'den'], { ...c.invocation, stdin });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(code, 0, c.stderr());
    assert.match(c.stderr(), / {2}1 {2}quack — confirm\? \[y\/N\] /);
    const runId = serving.service.status('den').lastOutcome?.runId ?? '';
    const gate = readTranscript(join(home, 'transcripts', `${runId}.jsonl`)).lines.find((l) => l.type === 'gate');
    assert.ok(gate?.type === 'gate' && gate.allowed && gate.how === 'tty', JSON.stringify(gate));
  });

  it('without a terminal the gate stays shut, as in a local run', async () => {
    const r = await quackd(['run', 'careful-hello', '--robot', 'den'], { env: env() });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /quack +\(denied: needs confirmation; no terminal to ask, --yes to allow\)/);
  });

  it('a robot busy in the service is refused in one line that names who holds it, since when, and how to free it', async () => {
    const waiting = gateWaiting(serving);
    const busy = await serving.service.run('den', { duck: 'careful-hello' });
    await waiting;
    try {
      const r = await quackd(['run', 'hello-world', '--robot', 'den'], { env: env() });
      assert.equal(r.code, 3);
      assert.equal(r.stdout, '');
      const holder = byText(cliUser()).replace(/[()]/g, '\\$&');
      assert.match(r.stderr, new RegExp(`^quackd: den is already running careful-hello for ${holder} since \\d\\d:\\d\\d:\\d\\d; one run at a time per robot \\('quackd stop den' frees it\\)\\n$`));
    } finally {
      serving.service.answerGate('den', false);
      await busy.done;
    }
  });

  it("refuses a local run's flags, and --local runs here instead", async () => {
    const r = await quackd(['run', 'hello-world', '--memory-dir', join(home, 'elsewhere')], { env: env() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^quackd: run: --memory-dir is for a run in this process, and quackd serve \(pid \d+\) runs this one with its own settings \(add --local to run here instead\)\n$/);
    const before = serving.service.status('den').lastOutcome?.runId;
    const local = await quackd(['run', 'hello-world', '--local', '--no-memory'], { env: env() });
    assert.equal(local.code, 0, local.stderr);
    assert.equal(serving.service.status('den').lastOutcome?.runId, before, 'the service did not run it');
  });

  it('transcript follow shows the service\'s run as it happens, to its outcome', async () => {
    const waiting = gateWaiting(serving);
    const run = await serving.service.run('den', { duck: 'careful-hello' });
    await waiting;
    const c = captured({ env: env() });
    const following = dispatch(['transcript', 'follow', 'den'], c.invocation);
    // Once the follower shows the run's header it is attached; then the run goes on.
    await waitFor(() => c.stdout().includes('careful-hello on'));
    serving.service.answerGate('den', true);
    await run.done;
    const code = await following;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(code, 0, c.stderr());
    const lines = c.stdout().trim().split('\n');
    assert.match(lines[0] ?? '', /^careful-hello on den \(microduck:sim2d\) · pilot fake/);
    assert.ok(lines.some((l) => /^ {2}1 {2}quack +quack!$/.test(l)), c.stdout());
    assert.match(lines.at(-1) ?? '', new RegExp(`^OK success — .* · transcript ${run.runId}$`));
  });

  it('transcript follow ROBOT with nothing under way waits for its next run, and shows a waiting gate and how to answer it', async () => {
    const c = captured({ env: env(), columns: 200 });
    const following = dispatch(['transcript', 'follow', 'den'], c.invocation);
    await waitFor(() => c.stdout().includes('waiting for the next run on den'));
    const waiting = gateWaiting(serving);
    const run = await serving.service.run('den', { duck: 'careful-hello' });
    await waiting;
    await waitFor(() => c.stdout().includes('waiting for a yes or no'));
    const question = c.stdout().split('\n').find((l) => l.includes('waiting for a yes or no'));
    assert.equal(question, '  1  quack — waiting for a yes or no: quackd confirm den yes|no');
    // Answered as the line says, from another terminal.
    const confirm = await quackd(['confirm', 'den', 'yes'], { env: env() });
    assert.equal(confirm.code, 0, confirm.stderr);
    await run.done;
    const code = await following;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(code, 0, c.stderr());
    const lines = c.stdout().trim().split('\n');
    assert.deepEqual(lines.slice(0, 2), ['waiting for the next run on den · Ctrl-C to stop', 'careful-hello on den (microduck:sim2d) · pilot fake · budget 3 steps, 5 calls, 30 s']);
    assert.ok(lines.some((l) => /^ {2}1 {2}quack +quack!$/.test(l)), c.stdout());
    assert.match(lines.at(-1) ?? '', new RegExp(`^OK success — .* · transcript ${run.runId}$`));
  });

  it('transcript follow of a run id not under way says so', async () => {
    const r = await quackd(['transcript', 'follow', '20990101-000000-hello-world'], { env: env() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no run under way on or with "20990101-000000-hello-world"/);
  });

  it('Ctrl-C in the terminal stops the run in the service: interrupted, exit 130', async () => {
    // A pilot that never answers: the run is under way until something stops it.
    pilot = () => scripted(['hang']);
    const started = new Promise<void>((resolve) => {
      const off = serving.service.events.on('run:start', () => (off(), resolve()));
    });
    const r = await runCli(['run', 'hello-world', '--robot', 'den'], {
      env: env(),
      onSpawn: (child) => void started.then(() => child.kill('SIGINT')),
    }).finally(() => (pilot = createFakeProvider));
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stdout, /interrupted — stopped by Ctrl-C/);
    assert.equal(serving.service.status('den').lastOutcome?.status, 'interrupted');
  });
});

describe('transcript follow without a service', () => {
  it("reads the last run's transcript to its end", async () => {
    const home = makeHome();
    try {
      const ran = await quackd(['run', 'hello-world'], { env: { QUACKD_HOME: home } });
      assert.equal(ran.code, 0, ran.stderr);
      const r = await quackd(['transcript', 'follow'], { env: { QUACKD_HOME: home } });
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.trim().split('\n');
      assert.match(lines[0] ?? '', /^hello-world on den \(microduck:sim2d\) · pilot fake/);
      assert.equal(lines.at(-1), ran.stdout.trim().split('\n').at(-1), 'the outcome line reads as the run printed it');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
