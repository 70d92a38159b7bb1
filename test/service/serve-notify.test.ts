/**
 * `quackd serve` (the built bin) under a stand-in for systemd's notify socket: READY=1 once it
 * serves, WATCHDOG=1 while the service's health has no `fail` and none while it has one (a serial
 * robot whose link is not open), STOPPING=1 on SIGTERM before the run under way stops, exit 0.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openService } from '../../src/service/socket/client.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { writeDuck } from '../helpers/ducks.js';
import { is, listen, noNotifyTools } from '../helpers/notify-listener.js';
import { tempDir } from '../helpers/tmp.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function serve(home: string, config: string, socket: string): { exited: Promise<CliResult>; child: () => ChildProcess | undefined; stderr: () => string } {
  writeFileSync(join(home, 'config.yaml'), config);
  let stderr = '';
  let child: ChildProcess | undefined;
  // 0.4 s: a ping every 0.2 s, so a few arrive in a short test.
  const exited = runCli(['serve'], { env: { QUACKD_HOME: home, NOTIFY_SOCKET: socket, WATCHDOG_USEC: '400000' }, timeoutMs: 60_000, onSpawn: (c) => ((child = c), c.stderr?.on('data', (d: string) => (stderr += d))) });
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

  it('no WATCHDOG=1 while the service health has a fail (a serial link that is not open), said once in the log', async () => {
    const home = tempDir('quackd-serve-notify-');
    const socket = join(home, 'notify.sock');
    const systemd = await listen(socket);
    const s = serve(home, `robots:\n  hall: { body: microduck:jsonrpc, port: ${join(home, 'no-such-tty')} }\nmqtt: false\n`, socket);
    await systemd.next(is('READY=1'));
    await sleep(1200); // six watchdog intervals
    assert.deepEqual(systemd.heard.filter(is('WATCHDOG=1')), []);
    assert.equal(s.stderr().match(/systemd watchdog pings withheld/g)?.length, 1, s.stderr());
    s.child()?.kill('SIGTERM');
    assert.equal((await s.exited).code, 0);
  });
});
