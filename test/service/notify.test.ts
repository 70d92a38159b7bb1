/**
 * sd_notify as systemd hears it: a unix datagram socket of the test's own (a Python listener that
 * closes the barrier fd as systemd does) stands in for systemd's, and a process runs the notifier
 * with the real systemd-notify. READY once, WATCHDOG at half of WATCHDOG_USEC while the service is alive
 * and none once not, STOPPING on SIGTERM; nothing at all without NOTIFY_SOCKET.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { SystemdNotify, watchdogIntervalMs } from '../../src/service/notify.js';
import { is, listen, noNotifyTools, type Heard } from '../helpers/notify-listener.js';
import { tempDir } from '../helpers/tmp.js';

const CHILD = fileURLToPath(new URL('./notify-child.ts', import.meta.url));

const started: ChildProcess[] = [];
after(() => started.forEach((p) => p.exitCode === null && p.signalCode === null && p.kill('SIGKILL')));

function service(env: NodeJS.ProcessEnv): ChildProcess & { said: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { env: { PATH: process.env['PATH'], ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  started.push(child);
  let said = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (said += d));
  return Object.assign(child, { said: () => said });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('sd_notify through systemd-notify', { skip: noNotifyTools }, () => {
  it('READY with a one-line status, WATCHDOG at half of WATCHDOG_USEC while alive, none once not, STOPPING on SIGTERM', async () => {
    const socket = join(tempDir(), 'notify.sock');
    const systemd = await listen(socket);
    const child = service({ NOTIFY_SOCKET: socket, WATCHDOG_USEC: '1000000' });
    const ready = await systemd.next(is('READY=1'));
    assert.equal(ready.message, 'READY=1\nSTATUS=serving 1 robot all well');

    const pings: Heard[] = [];
    while (pings.length < 4) pings.push(await systemd.next(is('WATCHDOG=1')));
    const gaps = pings.slice(1).map((p, i) => p.ms - (pings[i]?.ms ?? 0)).sort((a, b) => a - b);
    // Half of the 1 s timeout: well inside it, and not a ping per tick either.
    const median = gaps[1] ?? 0;
    assert.ok(median > 250 && median < 1000, `gaps between pings ${gaps.join(', ')} ms`);

    child.kill('SIGUSR2');
    await sleep(700); // a ping already on its way may still land
    const withheld = systemd.heard.filter(is('WATCHDOG=1')).length;
    await sleep(1500);
    assert.equal(systemd.heard.filter(is('WATCHDOG=1')).length, withheld, 'pings went on once the service was not alive');
    // The journal says why systemd is about to restart the service, once.
    assert.equal(child.said().match(/the service is not alive \(store: stuck\): systemd watchdog pings withheld/g)?.length, 1, child.said());

    const stopping = systemd.next(is('STOPPING=1'));
    child.kill('SIGTERM');
    assert.equal((await stopping).message, 'STOPPING=1\nSTATUS=stopping: SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0);
    assert.equal(systemd.heard.filter(is('READY=1')).length, 1);
  });

  it('reaches an abstract socket (@name), and sends no pings when WATCHDOG_PID names another process', async () => {
    const socket = `@quackd-test-${process.pid}-${Date.now()}`;
    const systemd = await listen(socket);
    const child = service({ NOTIFY_SOCKET: socket, WATCHDOG_USEC: '200000', WATCHDOG_PID: '1' });
    await systemd.next(is('READY=1'));
    await sleep(600); // six intervals
    const stopping = systemd.next(is('STOPPING=1'));
    child.kill('SIGTERM');
    await stopping;
    await once(child, 'exit');
    assert.deepEqual(systemd.heard.filter(is('WATCHDOG=1')), []);
  });
});

describe('the notifier without systemd', () => {
  const silent = pino({ level: 'silent' });

  it('does nothing without NOTIFY_SOCKET: no message, no timer', async () => {
    const sent: string[] = [];
    const sender = { open: () => void sent.push('open'), send: async (m: string) => void sent.push(m), close: () => undefined };
    const notify = new SystemdNotify({ env: { WATCHDOG_USEC: '2000' }, trouble: () => undefined, log: silent, sender });
    notify.start();
    notify.ready('up');
    notify.status('still up');
    await sleep(20);
    await notify.stopping();
    assert.equal(notify.enabled, false);
    assert.deepEqual(sent, []);
  });

  it('reads the watchdog interval as systemd sets it, and a bad WATCHDOG_USEC as a reason', () => {
    assert.equal(watchdogIntervalMs({ WATCHDOG_USEC: '30000000' }, 42), 15000);
    assert.equal(watchdogIntervalMs({ WATCHDOG_USEC: '30000000', WATCHDOG_PID: '42' }, 42), 15000);
    assert.equal(watchdogIntervalMs({ WATCHDOG_USEC: '30000000', WATCHDOG_PID: '7' }, 42), undefined);
    assert.equal(watchdogIntervalMs({}, 42), undefined);
    assert.match(String(watchdogIntervalMs({ WATCHDOG_USEC: '-5' }, 42)), /WATCHDOG_USEC "-5" is not a positive whole number/);
  });

  it('says once that systemd-notify is missing, and stops trying', async () => {
    let tries = 0;
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push((JSON.parse(line) as { msg: string }).msg) });
    const missing = Object.assign(new Error('spawn systemd-notify ENOENT'), { code: 'ENOENT' });
    const sender = { open: () => undefined, send: () => (tries++, Promise.reject(missing)), close: () => undefined };
    const notify = new SystemdNotify({ env: { NOTIFY_SOCKET: '/run/none' }, trouble: () => undefined, log, sender });
    notify.ready();
    notify.status('a');
    await notify.stopping();
    assert.equal(tries, 1);
    assert.deepEqual(warnings, ['systemd-notify is not installed: systemd will not hear that quackd is ready (Type=notify needs it)']);
  });
});
