/**
 * `quackd bridge probe` as a child process, the way a person runs it over SSH: against the host
 * firmware on a pty, with --json, and the one-line errors for a missing port or flag.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { quackd as inProcess } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';
import { Rig, missingTools } from './rig.js';

const probe = (args: readonly string[]) => inProcess(args, { env: { QUACKD_HOME: tempDir('quackd-probe-') } });

describe('quackd bridge probe', { skip: missingTools() }, () => {
  let rig: Rig;
  before(async () => {
    rig = await Rig.start();
  });
  after(async () => {
    await rig?.cleanup();
  });

  it('prints hello, frame counters and the round-trip time', async () => {
    const r = await probe(['bridge', 'probe', '--port', rig.hostPath, '--pings', '5']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /firmware {2}quackd-fw 0\.1\.0 on host · protocol 1/);
    assert.match(r.stdout, /left_hip_yaw +\[-0\.60, 0\.60\] rad/);
    assert.match(r.stdout, /host rx +ok \d+ · crc 0/);
    assert.match(r.stdout, /rtt +median \d+\.\d\d ms over 5 pings/);
    assert.equal(r.stderr, '', 'a clean link has no warning');
  });

  it('a port opened while the firmware streams (its queue full, serialport flushing it) reads a cut frame, not a damaged link: exit 0', async () => {
    const late = await Rig.start();
    try {
      // Four seconds of the 50 Hz stream fill the pty before anyone reads it.
      await new Promise((resolve) => setTimeout(resolve, 4000));
      const r = await probe(['bridge', 'probe', '--port', late.hostPath, '--pings', '3']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, '', 'no warning: the cable is fine');
      assert.match(r.stdout, /host rx +ok \d+ · crc 0 · malformed 0 · overlong 0 · runt 0 /);
    } finally {
      await late.cleanup();
    }
  });

  it('a firmware that dropped the answer to the first hello (its output backed up) is asked again: exit 0', async () => {
    const late = await Rig.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 4000));
      // Frozen while the probe opens the port and says hello, the firmware wakes to the hello and
      // room on the wire at once; it reads first, finds its transmit ring still full and drops the
      // answer: the cause of the test above failing once in CI.
      late.signalFirmware('SIGSTOP');
      const thaw = setTimeout(() => late.signalFirmware('SIGCONT'), 700);
      try {
        const r = await probe(['bridge', 'probe', '--port', late.hostPath, '--pings', '1', '--timeout', '3']);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /host rx +ok \d+ · crc 0 /);
      } finally {
        clearTimeout(thaw);
        late.signalFirmware('SIGCONT');
      }
    } finally {
      await late.cleanup();
    }
  });

  it('--json gives one object a script can read', async () => {
    const r = await probe(['bridge', 'probe', '--port', rig.hostPath, '--pings', '3', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { hello: { joints: string[] }; rtt_ms: { median: number; pings: number }; state: { torque: boolean } };
    assert.equal(report.hello.joints.length, 14);
    assert.equal(report.rtt_ms.pings, 3);
    assert.ok(report.rtt_ms.median > 0);
    assert.equal(report.state.torque, false, 'probing never switches torque on');
    assert.deepEqual((report as unknown as { link_errors: unknown }).link_errors, { crc: 0, framing: 0 });
  });

  it('a missing port is one line and exit 3', async () => {
    const r = await probe(['bridge', 'probe', '--port', '/dev/serial/by-id/no-such-duck']);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /^quackd: serial port \/dev\/serial\/by-id\/no-such-duck not found \(.+\)\n$/);
  });

  it('a path that is not a serial device says so, not "is the duck plugged in?"', async () => {
    const r = await probe(['bridge', 'probe', '--port', tempDir()]);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /^quackd: cannot open \S+: a directory, not a serial port \(a USB serial adapter shows up as \/dev\/ttyUSB0 or \/dev\/ttyACM0\)\n$/);
    assert.doesNotMatch(r.stderr, /plugged in/);
  });

  it('a missing --port is a usage error, exit 2', async () => {
    const r = await probe(['bridge', 'probe']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^quackd: bridge probe: --port is required/);
  });

  it('a silent port times out (--timeout S, default 1 s) with a hint about the baud rate', async () => {
    await rig.killFirmware();
    const r = await probe(['bridge', 'probe', '--port', rig.hostPath]);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /^quackd: no answer from the firmware on .*: no answer to hello within 1000 ms \(is it running quackd-fw, at 1000000 baud \(--baud\)\?\)\n$/);

    // --timeout: how long each answer may take, for a board that is emulated or very busy.
    const patient = await probe(['bridge', 'probe', '--port', rig.hostPath, '--timeout', '1.5']);
    assert.equal(patient.code, 3);
    assert.match(patient.stderr, /: no answer to hello within 1500 ms /);
    const zero = await probe(['bridge', 'probe', '--port', rig.hostPath, '--timeout', '0']);
    assert.equal(zero.code, 2);
    assert.match(zero.stderr, /^quackd: --timeout: "0" is not a number ≥ 0\.01\n/);
  });
});

describe('quackd bridge probe on a noisy link', { skip: missingTools() }, () => {
  let rig: Rig;
  before(async () => {
    // Line noise and a frame with a flipped bit every 5 ms, from the firmware towards quackd.
    rig = await Rig.start(['--noise-ms', '5']);
  });
  after(async () => {
    await rig?.cleanup();
  });

  it('warns on stderr and exits 3 when the link counts CRC or framing errors', async () => {
    const r = await probe(['bridge', 'probe', '--port', rig.hostPath, '--pings', '40']);
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.match(r.stdout, /rtt +median/, 'the report is printed all the same');
    assert.match(r.stderr, /^quackd: warning: the link to .* counted \d+ CRC errors? and \d+ framing errors? \(check the cable, the port and --baud 1000000\)\n$/);
  });

  it('--json says so too: link_errors in the object, exit 3', async () => {
    const r = await probe(['bridge', 'probe', '--port', rig.hostPath, '--pings', '40', '--json']);
    assert.equal(r.code, 3, r.stdout + r.stderr);
    const report = JSON.parse(r.stdout) as { link_errors: { crc: number; framing: number } };
    assert.ok(report.link_errors.crc + report.link_errors.framing > 0);
  });
});
