/**
 * health's `latency` line: an FTDI adapter's latency timer (sysfs) against the bus's wait, and a
 * driver that refused quackd's low-latency request. The timer file is read as the kernel lays it
 * out (/sys/class/tty/<tty>/device/latency_timer), through a by-id link as robots name ports.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { latencyTimerMs, slowAdapterHint } from '../../src/bridge/latency-timer.js';
import { latencyLine } from '../../src/health/bus-latency.js';

describe('the adapter latency timer', () => {
  const root = mkdtempSync(join(tmpdir(), 'quackd-latency-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const sys = join(root, 'sys');
  mkdirSync(join(root, 'dev'));
  mkdirSync(join(root, 'by-id'));
  mkdirSync(join(sys, 'class/tty/ttyUSB3/device'), { recursive: true });
  writeFileSync(join(root, 'dev/ttyUSB3'), '');
  writeFileSync(join(root, 'dev/ttyACM0'), '');
  const byId = join(root, 'by-id/usb-FTDI_USB__-__Serial_Converter_FT8ISZ1Y-if00-port0');
  symlinkSync(join(root, 'dev/ttyUSB3'), byId);

  it('is read through a by-id link from the tty device sysfs shows', () => {
    writeFileSync(join(sys, 'class/tty/ttyUSB3/device/latency_timer'), '16\n');
    assert.equal(latencyTimerMs(byId, sys), 16);
    writeFileSync(join(sys, 'class/tty/ttyUSB3/device/latency_timer'), '1\n');
    assert.equal(latencyTimerMs(join(root, 'dev/ttyUSB3'), sys), 1);
  });

  it('is named as why every servo seemed silent when it is at or over the wait, and only then', () => {
    writeFileSync(join(sys, 'class/tty/ttyUSB3/device/latency_timer'), '16\n');
    assert.equal(
      slowAdapterHint(byId, 10, sys),
      `the adapter holds each reply 16 ms (its latency timer), at or over the 10 ms a servo is waited for: echo 1 | sudo tee ${sys}/class/tty/ttyUSB3/device/latency_timer`,
    );
    assert.equal(slowAdapterHint(byId, 20, sys), undefined);
    assert.equal(slowAdapterHint(join(root, 'dev/ttyACM0'), 10, sys), undefined);
  });

  it('is undefined for a port whose driver has none, or a port that is not there', () => {
    assert.equal(latencyTimerMs(join(root, 'dev/ttyACM0'), sys), undefined);
    assert.equal(latencyTimerMs(join(root, 'dev/ttyUSB7'), sys), undefined);
  });
});

describe('health latency line', () => {
  const port = '/dev/ttyUSB0';

  it('is ok at 1 ms, the timer low latency sets', () => {
    const line = latencyLine({ port, lowLatency: 'on', timerMs: 1, busTimeoutMs: 10 });
    assert.equal(line?.status, 'ok');
    assert.match(line?.detail ?? '', /latency timer is 1 ms/);
  });

  it('fails at or over the bus wait, with the command that shortens it', () => {
    const line = latencyLine({ port, lowLatency: { refused: 'errno 1' }, timerMs: 16, busTimeoutMs: 10 });
    assert.equal(line?.status, 'fail');
    assert.match(line?.detail ?? '', /16 ms \(low latency refused: errno 1\), at or over bus_timeout_ms 10/);
    assert.match(line?.detail ?? '', /echo 1 \| sudo tee \/sys\/class\/tty\/ttyUSB0\/device\/latency_timer/);
  });

  it('warns under the bus wait: each reply still waits for it', () => {
    const line = latencyLine({ port, lowLatency: 'on', timerMs: 4, busTimeoutMs: 10 });
    assert.equal(line?.status, 'warn');
    assert.match(line?.detail ?? '', /up to that long/);
  });

  it('says a refusal where no timer is shown, and nothing for a port with neither (a CH340 board, a pty)', () => {
    const refused = latencyLine({ port, lowLatency: { refused: 'errno 13' }, timerMs: undefined, busTimeoutMs: 10 });
    assert.equal(refused?.status, 'warn');
    assert.match(refused?.detail ?? '', /refused low latency \(errno 13\).*setserial \/dev\/ttyUSB0 low_latency/);
    assert.equal(latencyLine({ port, lowLatency: 'unsupported', timerMs: undefined, busTimeoutMs: 10 }), undefined);
    assert.equal(latencyLine({ port, lowLatency: undefined, timerMs: undefined, busTimeoutMs: 10 }), undefined);
  });
});
