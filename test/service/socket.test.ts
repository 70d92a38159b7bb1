/**
 * The control socket with a real client over the real socket: a service started in-process
 * (sim2d robots, the fake pilot, a temp home) and the CLI's own commands in-process against it.
 * status, stop, health; a bad request answered with an error and the service still up; a stale
 * socket from a crashed service replaced; a second serve refused; no service said in one line.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { createFakeProvider } from '../../src/pilot/providers/fake.js';
import { startService, type Serving } from '../../src/service/lifecycle.js';
import type { FrontDoor } from '../../src/service/front-door.js';
import type { StatusReply } from '../../src/service/socket/protocol.js';
import { writeDuck } from '../helpers/ducks.js';
import { quackd } from '../helpers/quackd.js';

const CONFIG = 'robots:\n  den: { body: microduck:sim2d }\n  hall: { body: microduck:sim2d }\n';

function makeHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'quackd-socket-'));
  writeFileSync(join(home, 'config.yaml'), CONFIG);
  mkdirSync(join(home, 'ducks'));
  writeDuck(join(home, 'ducks'), 'careful-hello', 'robot: microduck:sim2d\nverbs: [quack]\nconfirm: [quack]\nbudgets: { steps: 3, llm_calls: 5, seconds: 30 }');
  return home;
}

const serve = (home: string): Promise<Serving> => startService({ env: { QUACKD_HOME: home }, pilot: () => Promise.resolve(createFakeProvider()) });

/** One raw line to the socket; the lines it answered. */
function raw(path: string, line: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(line));
    socket.on('data', (d: string) => (text += d));
    socket.on('error', reject);
    socket.on('close', () => resolve(text.split('\n').filter((l) => l !== '')));
  });
}

describe('the control socket', () => {
  let home: string;
  let serving: Serving;
  const env = (): NodeJS.ProcessEnv => ({ QUACKD_HOME: home });

  before(async () => {
    home = makeHome();
    serving = await serve(home);
  });
  after(async () => {
    await serving?.stop('the test');
    rmSync(home, { recursive: true, force: true });
  });

  it('is a socket in the data directory, the owner\'s alone', () => {
    assert.equal(serving.socket, join(home, 'quackd.sock'));
    const st = statSync(serving.socket);
    assert.ok(st.isSocket());
    assert.equal(st.mode & 0o777, 0o600);
  });

  it("quackd status: the fleet, the service's pid and config", async () => {
    const r = await quackd(['status'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`pid ${process.pid}`));
    assert.match(r.stdout, new RegExp(`config ${join(home, 'config.yaml')}`));
    assert.match(r.stdout, /^den\s+idle\s+microduck:sim2d$/m);
    assert.match(r.stdout, /^hall\s+idle\s+microduck:sim2d$/m);
    const json = await quackd(['status', '--json'], { env: env() });
    const status = JSON.parse(json.stdout) as StatusReply;
    assert.deepEqual(status.robots.map((x) => x.robot), ['den', 'hall']);
    assert.equal(status.service.pid, process.pid);
  });

  it('quackd stop during a run ends it interrupted; status shows the outcome', async () => {
    const waiting = new Promise<void>((resolve) => {
      const off = serving.service.events.on('run:gate', (e) => (e.state === 'waiting' ? (off(), resolve()) : undefined));
    });
    const run = await serving.service.run('den', { duck: 'careful-hello' });
    await waiting;
    const during = JSON.parse((await quackd(['status', '--json'], { env: env() })).stdout) as StatusReply;
    const den = during.robots.find((x) => x.robot === 'den');
    assert.equal(den?.activity, 'running');
    assert.equal(den?.gate?.verb, 'quack');
    const stop = await quackd(['stop', 'den'], { env: env() });
    assert.equal(stop.code, 0, stop.stderr);
    assert.equal(stop.stdout.trim(), 'stopped den');
    assert.equal((await run.done).outcome.status, 'interrupted');
    const afterwards = await quackd(['status'], { env: env() });
    assert.match(afterwards.stdout, /last run\s+interrupted — stopped by an emergency stop/);
  });

  /** A `quackd do walk 0.5` as the CLI sends it, on a connection of its own: its replies, and a way to send more lines. */
  function doWalk(extra = ''): { readonly sent: Promise<void>; readonly replies: Promise<{ type: string; report?: { outcome: { status: string; reason: string }; steps: number; transcriptPath: string } }[]> } {
    const text = '---\nrobot: microduck:sim2d\nverbs: [walk]\nbudgets: { steps: 2, llm_calls: 2, seconds: 30 }\n---\n# do\n\n1. walk 0.5\n';
    const socket = createConnection(serving.socket);
    let sent: () => void = () => undefined;
    const written = new Promise<void>((resolve) => (sent = resolve));
    let out = '';
    socket.setEncoding('utf8').on('data', (d: string) => (out += d));
    socket.on('connect', () => socket.write(`${JSON.stringify({ op: 'run', robot: 'den', duck: 'do', text, script: true, gates: 'yes' })}\n${extra}`, () => sent()));
    const replies = new Promise<string>((resolve, reject) => (socket.on('error', reject), socket.on('close', () => resolve(out))));
    return { sent: written, replies: replies.then((o) => o.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { type: string })) };
  }

  it('a stop sent right after a run request, while the service still asks the kernel who sent it, stops that run: nothing moves', async () => {
    const run = doWalk();
    await run.sent;
    assert.deepEqual(await raw(serving.socket, '{"op":"stop","robot":"den"}\n'), ['{"type":"stopped","robots":["den"]}']);
    const end = (await run.replies).find((r) => r.type === 'end');
    assert.deepEqual([end?.report?.outcome.status, end?.report?.outcome.reason, end?.report?.steps], ['interrupted', 'stopped by an emergency stop', 0]);
  });

  it("a Ctrl-C sent before the run has started is kept for it, not dropped: the run ends stopped by it, and a do leaves the robot's memory alone", async () => {
    const run = doWalk('{"op":"abort","why":"Ctrl-C"}\n');
    const end = (await run.replies).find((r) => r.type === 'end');
    assert.deepEqual([end?.report?.outcome.status, end?.report?.outcome.reason], ['interrupted', 'stopped by Ctrl-C']);
    const lines = readFileSync(end?.report?.transcriptPath ?? '', 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; action?: string });
    assert.deepEqual(lines.filter((l) => l.type === 'memory').map((l) => l.action), [], 'one verb is no episode to recall');
  });

  it('quackd confirm answers the gate a service run waits on, from another terminal; with none waiting it says so, exit 1', async () => {
    const none = await quackd(['confirm', 'hall', 'yes'], { env: env() });
    assert.equal(none.code, 1);
    assert.match(none.stderr, /^quackd: confirm: no gate is waiting on hall/);
    const waiting = new Promise<void>((resolve) => {
      const off = serving.service.events.on('run:gate', (e) => (e.robot === 'hall' && e.state === 'waiting' ? (off(), resolve()) : undefined));
    });
    const run = await serving.service.run('hall', { duck: 'careful-hello' });
    await waiting;
    const wrongVerb = await quackd(['confirm', 'hall', 'yes', '--verb', 'kick'], { env: env() });
    assert.equal(wrongVerb.code, 1, 'an answer about another verb opens nothing');
    const yes = await quackd(['confirm', 'hall', 'yes', '--verb', 'quack'], { env: env() });
    assert.equal(yes.code, 0, yes.stderr);
    assert.equal(yes.stdout.trim(), "confirmed: hall's gate");
    await run.done;
    const quacked = (await quackd(['transcript', 'show', run.runId, '--json'], { env: env() })).stdout;
    assert.match(quacked, /"type":"gate","verb":"quack"[^\n]*"allowed":true,"how":"person"/);
    const bad = await quackd(['confirm', 'hall', 'maybe'], { env: env() });
    assert.equal(bad.code, 2);
  });

  it('quackd stop and quackd run name an unknown robot: one line, exit 2, with where to see the fleet', async () => {
    const r = await quackd(['stop', 'attic'], { env: env() });
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /unknown robot "attic".* \('quackd status' lists the robots this service holds\)$/m);
    const run = await quackd(['run', 'hello-world', '--robot', 'attic'], { env: env() });
    assert.equal(run.code, 2);
    assert.deepEqual(run.stderr.trim().split('\n'), [`quackd: unknown robot "attic" ('quackd status' lists the robots this service holds)`]);
  });

  it('a bad request is answered with an error, and the service answers the next one', async () => {
    for (const line of ['not json\n', '{"op":"launch"}\n', '{"op":"run","robot":"den"}\n', '[1,2]\n', '{"op":"stop","robot":42}\n']) {
      const replies = await raw(serving.socket, line);
      assert.equal(replies.length, 1, line);
      const reply = JSON.parse(replies[0] ?? '') as { type: string; kind: string; message: string };
      assert.equal(reply.type, 'error', line);
      assert.equal(reply.kind, 'usage', line);
    }
    const status = await raw(serving.socket, '{"op":"status"}\n');
    assert.equal((JSON.parse(status[0] ?? '') as { type: string }).type, 'status');
  });

  it('a request line left half-sent is answered and let go after 5 s: such clients do not pile up', async () => {
    const t0 = Date.now();
    const replies = await raw(serving.socket, '{"op":"sta');
    const waited = Date.now() - t0;
    assert.deepEqual(replies.map((r) => JSON.parse(r) as unknown), [{ type: 'error', kind: 'usage', message: 'no request within 5 s: a request is one JSON object and a newline' }]);
    assert.ok(waited >= 4900 && waited < 15_000, `let go after ${waited} ms`);
  });

  it('health: the store, as the service sees it', async () => {
    const replies = await raw(serving.socket, '{"op":"health"}\n');
    const reply = JSON.parse(replies[0] ?? '') as { type: string; lines: { check: string; status: string; detail: string }[] };
    assert.equal(reply.type, 'health');
    const store = reply.lines.find((l) => l.check === 'store');
    assert.equal(store?.status, 'ok');
    assert.match(store?.detail ?? '', /^ok \(\d+ notes, \d+ episodes\)$/);
  });

  it('a second serve on the same home is refused, naming the first one\'s pid', async () => {
    await assert.rejects(serve(home), new RegExp(`quackd serve is already running \\(pid ${process.pid}\\)`));
    // The first one is untouched.
    assert.equal((await quackd(['status'], { env: env() })).code, 0);
  });
});

describe('without a running service', () => {
  let home: string;
  let serving: Serving | undefined;
  afterEach(async () => {
    await serving?.stop('the test');
    serving = undefined;
    rmSync(home, { recursive: true, force: true });
  });

  it('status and stop say so in one line, exit 3', async () => {
    home = makeHome();
    for (const verb of ['status', 'stop']) {
      const r = await quackd([verb], { env: { QUACKD_HOME: home } });
      assert.equal(r.code, 3, verb);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /^quackd: no quackd serve is running/);
    }
  });

  it('logs outside systemd says where the logs go, one line, exit 3', { skip: existsSync('/run/systemd/system') ? 'systemd runs here' : false }, async () => {
    home = makeHome();
    const r = await quackd(['logs'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 3);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /is not under systemd here: started by hand, it logs to the stderr of its own terminal/);
  });

  it('a data directory whose socket path a unix socket cannot hold is refused in one line, exit 3, and leaves no stray socket', async () => {
    home = makeHome();
    const deep = join(home, 'a'.repeat(60), 'b'.repeat(60));
    mkdirSync(deep, { recursive: true });
    const r = await quackd(['serve'], { env: { QUACKD_HOME: deep } });
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /^quackd: the control socket's path is \d+ bytes, over the 107 a unix socket may have: .*\/quackd\.sock \(give QUACKD_HOME a shorter path\)$/m);
    assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
    assert.deepEqual(readdirSync(join(home, 'a'.repeat(60))), ['b'.repeat(60)], 'nothing made beside the data directory');
  });

  it('a stale socket left by a crashed service is replaced', async () => {
    home = makeHome();
    const path = join(home, 'quackd.sock');
    // A process that listened there and was killed: the file stays, nobody answers.
    const child = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.kill('SIGKILL');
    await new Promise<void>((resolve) => child.once('exit', () => resolve()));
    assert.ok(existsSync(path), 'the crashed process left its socket');
    assert.equal((await quackd(['status'], { env: { QUACKD_HOME: home } })).code, 3, 'a stale socket is no service');
    serving = await serve(home);
    const r = await quackd(['status'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 0, r.stderr);
  });
});

describe('front doors', () => {
  it('start in order after the runtime, add status and health lines, and stop in reverse after the runs', async () => {
    const home = makeHome();
    const seen: string[] = [];
    let runEnded = false;
    const door = (name: string): FrontDoor => ({
      name,
      start: () => (seen.push(`start ${name}`), Promise.resolve()),
      stop: () => (seen.push(`stop ${name}${runEnded ? ' after the run' : ''}`), Promise.resolve()),
      status: () => [{ label: name, value: `${name} connected to mqtt://127.0.0.1:1883`, ok: true }],
      health: () => [{ check: name, status: 'ok', detail: 'connected' }],
    });
    const serving = await startService({ env: { QUACKD_HOME: home }, pilot: () => Promise.resolve(createFakeProvider()), doors: () => [door('broker'), door('notify')] });
    try {
      const status = await quackd(['status'], { env: { QUACKD_HOME: home } });
      assert.match(status.stdout, /^broker\s+broker connected to mqtt:\/\/127\.0\.0\.1:1883$/m);
      assert.ok((await serving.service.health()).some((l) => l.check === 'notify' && l.status === 'ok'));
      const run = await serving.service.run('den', { duck: 'careful-hello' });
      void run.done.then(() => (runEnded = true));
    } finally {
      await serving.stop('the test');
      rmSync(home, { recursive: true, force: true });
    }
    assert.deepEqual(seen, ['start broker', 'start notify', 'stop notify after the run', 'stop broker after the run']);
  });
});
