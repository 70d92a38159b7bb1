/**
 * `quackd serve` (the built bin) under a stand-in for systemd's notify socket: READY=1 once it
 * serves, WATCHDOG=1 while the service itself is alive and none once it is not (its control
 * socket gone), STOPPING=1 on SIGTERM before the run under way stops, exit 0. A serial robot
 * that is missing, plugged in and unplugged again (the host firmware over a pty) is that
 * robot's `warn` and never stops the pings: systemd must not restart every robot for one duck away.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { HealthLine } from '../../src/service/api.js';
import { askService, openService } from '../../src/service/socket/client.js';
import { Rig, buildFirmware, missingTools } from '../bridge/rig.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { writeDuck } from '../helpers/ducks.js';
import { is, listen, noNotifyTools } from '../helpers/notify-listener.js';
import { tempDir } from '../helpers/tmp.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function serve(home: string, config: string, socket: string, watchdogUsec = '400000'): { exited: Promise<CliResult>; child: () => ChildProcess | undefined; stderr: () => string } {
  writeFileSync(join(home, 'config.yaml'), config);
  let stderr = '';
  let child: ChildProcess | undefined;
  // 0.4 s by default: a ping every 0.2 s, so a few arrive in a short test.
  const exited = runCli(['serve'], { env: { QUACKD_HOME: home, NOTIFY_SOCKET: socket, WATCHDOG_USEC: watchdogUsec }, timeoutMs: 120_000, onSpawn: (c) => ((child = c), c.stderr?.on('data', (d: string) => (stderr += d))) });
  let done = false;
  void exited.finally(() => (done = true));
  after(() => void (done ? undefined : child?.kill('SIGKILL')));
  return { exited, child: () => child, stderr: () => stderr };
}

describe('quackd serve and systemd', { skip: noNotifyTools }, () => {
  it('READY=1 once serving, WATCHDOG=1 while healthy, STOPPING=1 before the run stops, exit 0', async () => {
    const home = tempDir('quackd-serve-notify-');
    mkdirSync(join(home, 'ducks'));
    writeDuck(join(home, 'ducks'), 'careful-hello', 'robot: microduck:sim2d\nverbs: [quack]\nconfirm: [quack]\nbudgets: { steps: 3, llm_calls: 5, seconds: 30 }');
    const socket = join(home, 'notify.sock');
    const systemd = await listen(socket);
    const s = serve(home, 'robots:\n  den: { body: microduck:sim2d }\nmqtt: false\n', socket);
    const ready = await systemd.next(is('READY=1'));
    assert.equal(ready.message, 'READY=1\nSTATUS=serving 1 robot');
    assert.ok(s.stderr().includes('quackd serve ready'), 'READY=1 only once the service said it serves');
    await systemd.next(is('WATCHDOG=1'));
    await systemd.next(is('WATCHDOG=1'));

    // A run waiting at its gate when SIGTERM comes: systemd hears STOPPING=1 before it ends.
    let endedAt = 0;
    let asked: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (asked = resolve));
    const run = await openService({ QUACKD_HOME: home }, { op: 'run', robot: 'den', duck: 'careful-hello', gates: 'ask' }, (r) => {
      if (r.type === 'gate') asked();
      if (r.type === 'end') endedAt = performance.now();
    });
    assert.ok(run !== undefined);
    await gate;
    const stopping = systemd.next(is('STOPPING=1'));
    s.child()?.kill('SIGTERM');
    const heard = await stopping;
    assert.equal(heard.message, 'STOPPING=1\nSTATUS=stopping: SIGTERM');
    const r = await s.exited;
    await run.closed;
    assert.equal(r.code, 0, r.stderr);
    assert.ok(endedAt > 0, 'the run ended');
    assert.ok(heard.at < endedAt, 'STOPPING=1 came before the run stopped');
    assert.equal(systemd.heard.filter(is('READY=1')).length, 1);
  });

  it('no WATCHDOG=1 once the service itself is not alive (its control socket file removed), said once in the log with why', async () => {
    const home = tempDir('quackd-serve-notify-');
    const socket = join(home, 'notify.sock');
    const systemd = await listen(socket);
    const s = serve(home, 'robots:\n  den: { body: microduck:sim2d }\nmqtt: false\n', socket);
    await systemd.next(is('READY=1'));
    await systemd.next(is('WATCHDOG=1'));
    // Every CLI is outside now: the restart systemd makes is what brings the socket back.
    rmSync(join(home, 'quackd.sock'));
    await sleep(600); // a ping already on its way may still land
    const before = systemd.heard.filter(is('WATCHDOG=1')).length;
    await sleep(1200); // six watchdog intervals
    assert.equal(systemd.heard.filter(is('WATCHDOG=1')).length, before, 'pings went on without the control socket');
    assert.equal(s.stderr().match(/the service is not alive \(socket: not listening at .*quackd\.sock\): systemd watchdog pings withheld/g)?.length, 1, s.stderr());
    s.child()?.kill('SIGTERM');
    assert.equal((await s.exited).code, 0);
  });

  it('a serial robot missing, plugged in, then unplugged again: WATCHDOG=1 never stops, its link is a warn, and its runs work while it is there', { skip: missingTools() }, async () => {
    buildFirmware();
    const home = tempDir('quackd-serve-notify-');
    const env = { QUACKD_HOME: home };
    // The rig's paths, before there is anything at them: the duck is not plugged in yet.
    const rig = new Rig();
    after(() => rig.cleanup());
    const socket = join(home, 'notify.sock');
    const systemd = await listen(socket);
    // A 3 s watchdog: systemd restarts the service when two pings are more than 3 s apart.
    const s = serve(home, `robots:\n  hall: { body: microduck:jsonrpc, port: ${JSON.stringify(rig.hostPath)} }\n  den: { body: microduck:sim2d }\nmqtt: false\n`, socket, '3000000');
    await systemd.next(is('READY=1'));
    const link = async (): Promise<HealthLine | undefined> => {
      const reply = await askService(env, { op: 'health' });
      assert.ok(reply?.type === 'health', JSON.stringify(reply));
      assert.deepEqual(reply.lines.filter((l) => l.status === 'fail'), [], 'nothing fails: a robot away is a warning');
      return reply.lines.find((l) => l.check === 'link hall');
    };
    // Asked again and again, as a person would: a loaded machine takes seconds to open a port.
    const linkIs = async (status: string, detail: RegExp): Promise<void> => {
      const until = Date.now() + 30_000;
      for (let last = await link(); last?.status !== status || !detail.test(last.detail); last = await link()) {
        if (Date.now() > until) assert.fail(`link hall is ${JSON.stringify(last)}, not ${status} ${String(detail)}`);
        await sleep(200);
      }
    };
    const quack = async (): Promise<void> => {
      const r = await runCli(['do', 'quack', '--robot', 'hall'], { env, timeoutMs: 60_000 });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /^OK success/m);
    };

    await linkIs('warn', /^not open: serial port .* not found/);
    await rig.startLink();
    await rig.startFirmware(['--reopen']);
    // Opened again by the service itself once the port is there, before any run asks.
    await linkIs('ok', /^ok$/);
    await quack();
    // Held open between runs, the jsonrpc body's own link reopens the port when it is back.
    await rig.unplug({ keepFirmware: true });
    await linkIs('warn', /^lost: quackd reopens its port once it is back; up again when the firmware answers$/);
    await rig.startLink();
    await linkIs('ok', /^ok$/);
    await quack();
    await rig.unplug();
    await linkIs('warn', /^lost: quackd reopens its port once it is back; up again when the firmware answers$/);
    await systemd.next(is('WATCHDOG=1'));

    s.child()?.kill('SIGTERM');
    assert.equal((await s.exited).code, 0, s.stderr());
    const pings = systemd.heard.filter(is('WATCHDOG=1')).map((h) => h.ms);
    const ready = systemd.heard.find(is('READY=1'))?.ms ?? 0;
    const gaps = [pings[0]! - ready, ...pings.slice(1).map((p, i) => p - pings[i]!)];
    assert.ok(Math.max(...gaps) < 3000, `a gap of ${Math.round(Math.max(...gaps))} ms between pings: systemd would have restarted the service`);
    assert.doesNotMatch(s.stderr(), /pings withheld/);
    // The journal says when the robot went and came back: one line each time.
    assert.equal(s.stderr().match(/link lost; quackd reopens its port once it is back; up again when the firmware answers/g)?.length, 2, s.stderr());
    assert.equal(s.stderr().match(/"msg":"link back"/g)?.length, 1, s.stderr());
  });
});
