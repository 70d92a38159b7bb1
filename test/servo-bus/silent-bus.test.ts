/**
 * A bus where nothing answers, as a builder meets it on a Pi: the Open Duck Mini's STS3215 run at
 * 1 Mbaud and a scan or a config at 115200 reaches servos that hear only noise, or a Dynamixel
 * body is named for Feetech servos. The built CLI against the servo simulator on a pty the test
 * holds (held-pty.ts): `quackd bus scan` and `quackd calibrate` each say it in one line that leads
 * with the likelier cause, exit 3, and send no write. Servos deaf at the rate tried are simulated
 * as silent ones: a pty carries bytes at any rate, the wire does not.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { OPEN_DUCK_MINI_V2 } from '../../src/bodies/microduck/servo-bus/joint-table.js';
import { assertFreshBuild, runCli } from '../helpers/cli.js';
import { HeldPty, type FarEnd } from '../helpers/held-pty.js';
import { ServoSim } from '../helpers/servo-sim.js';
import { tempDir } from '../helpers/tmp.js';

/** The Open Duck Mini v2's fourteen STS3215, each deaf at the rate the test scans at. */
function deafDuck(far: FarEnd): ServoSim {
  const sim = ServoSim.open(far, { protocol: 'feetech', servos: OPEN_DUCK_MINI_V2.map((j) => ({ id: j.id, model: 'STS3215' })) });
  for (const j of OPEN_DUCK_MINI_V2) sim.silence(j.id);
  return sim;
}

describe('a servo bus where nothing answers', () => {
  let pty: HeldPty;
  let sim: ServoSim | undefined;

  before(async () => {
    assertFreshBuild();
    pty = await new HeldPty('quackd-silent-bus-').open();
  });
  afterEach(() => {
    sim?.close();
    sim = undefined;
  });
  after(async () => {
    await pty?.close();
  });

  /** A home whose config has one robot `duck` on the pty, with `extra` settings lines. */
  const duckHome = (body: string, extra = ''): { home: string; config: string; text: string } => {
    const home = tempDir('quackd-silent-bus-');
    const config = join(home, 'config.yaml');
    const text = `robots:\n  duck:\n    body: ${body}\n    port: ${pty.near}\n    bus_timeout_ms: 50\n${extra}`;
    writeFileSync(config, text);
    return { home, config, text };
  };

  it('bus scan at 115200 of servos at 1 Mbaud: the factory rate first, then power and protocol; exit 3, no write', async () => {
    sim = deafDuck(pty.far);
    const r = await runCli(['bus', 'scan', '--port', pty.near, '--baud', '115200', '--ids', '10-14', '--timeout', '50'], { env: { QUACKD_HOME: tempDir() } });
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(
      r.stderr,
      `quackd: no feetech servo answered on ${pty.near} at 115200 baud (ids 10–14) (Feetech servos ship at 1000000 baud, the Open Duck Mini's STS3215 among them: try --baud 1000000; else is it powered? or try --protocol dynamixel)\n`,
    );
    assert.deepEqual(sim.writes(), []);
  });

  it('a dynamixel bus scan at an odd rate names both rates Dynamixel servos are found at', async () => {
    sim = deafDuck(pty.far);
    const r = await runCli(['bus', 'scan', '--port', pty.near, '--protocol', 'dynamixel', '--baud', '9600', '--ids', '1-2', '--timeout', '50'], { env: { QUACKD_HOME: tempDir() } });
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /^quackd: no dynamixel servo answered on \S+ at 9600 baud \(ids 1–2\) \(Dynamixel X servos ship at 57600 baud, and the XL330 ducks run at 1000000: try --baud 57600 or 1000000; else is it powered\? or try --protocol feetech\)\n$/);
  });

  it('calibrate of a duck configured at 115200: one line naming the rate and the setting to fix, not fourteen servos; nothing sent but reads, the config as it was', async () => {
    sim = deafDuck(pty.far);
    const { home, config, text } = duckHome('microduck:feetech', '    baud: 115200\n');
    const r = await runCli(['calibrate', '--robot', 'duck', '--yes'], { env: { QUACKD_HOME: home, QUACKD_MEMORY_DIR: join(home, 'memory') } });
    assert.equal(r.code, 3, r.stderr);
    assert.equal(
      r.stderr,
      `quackd: calibrate: no feetech servo answered on ${pty.near} at 115200 baud (ids 10–14, 20–24, 30–33): nothing written, the config is as it was (Feetech servos ship at 1000000 baud, the Open Duck Mini's STS3215 among them: is robots.duck.baud right in ${config}? 'quackd bus scan --port ${pty.near} --protocol feetech --baud 1000000' looks without a write)\n`,
    );
    assert.equal(readFileSync(config, 'utf8'), text);
    assert.deepEqual(sim.writes(), [], 'not even torque off');
  });

  it('calibrate of a microduck:dynamixel robot wired to Feetech servos: one line asking whether they are dynamixel servos, the scan to try; no write', async () => {
    sim = ServoSim.open(pty.far, { protocol: 'feetech', servos: OPEN_DUCK_MINI_V2.map((j) => ({ id: j.id, model: 'STS3215' })) });
    const { home, config, text } = duckHome('microduck:dynamixel');
    const r = await runCli(['calibrate', '--robot', 'duck', '--yes'], { env: { QUACKD_HOME: home, QUACKD_MEMORY_DIR: join(home, 'memory') } });
    assert.equal(r.code, 3, r.stderr);
    assert.equal(
      r.stderr,
      `quackd: calibrate: no dynamixel servo answered on ${pty.near} at 1000000 baud (ids 10–14, 20–24, 30–33): nothing written, the config is as it was (is it powered, and are they dynamixel servos? 'quackd bus scan --port ${pty.near} --protocol feetech --baud 1000000' tries the other protocol without a write)\n`,
    );
    assert.equal(readFileSync(config, 'utf8'), text);
    assert.deepEqual(sim.writes(), []);
  });
});

describe('a port that is not a serial device', () => {
  /** What every opener says of it: plainly, never serialport's or stty's words ("Inappropriate ioctl for device setting custom baud rate"). */
  const WHERE = '(a USB serial adapter shows up as /dev/ttyUSB0 or /dev/ttyACM0)';

  it('bus scan, calibrate, bridge probe and a run of a jsonrpc robot on /dev/null or a regular file: one plain line saying so, exit 3', async () => {
    const home = tempDir('quackd-not-a-tty-');
    const file = join(home, 'ttyUSB0');
    writeFileSync(file, '');
    for (const port of ['/dev/null', file]) {
      const scan = await runCli(['bus', 'scan', '--port', port, '--ids', '1'], { env: { QUACKD_HOME: home } });
      assert.equal(scan.code, 3, scan.stderr);
      assert.equal(scan.stderr, `quackd: cannot open ${port}: not a serial port ${WHERE}\n`);
      writeFileSync(join(home, 'config.yaml'), `robots:\n  duck:\n    body: microduck:feetech\n    port: ${port}\n  bench:\n    body: microduck:jsonrpc\n    port: ${port}\n`);
      const cal = await runCli(['calibrate', '--robot', 'duck', '--yes'], { env: { QUACKD_HOME: home } });
      assert.equal(cal.code, 3, cal.stderr);
      assert.equal(cal.stderr, `quackd: calibrate: cannot open ${port}: not a serial port: nothing written, the config is as it was ${WHERE}\n`);
      const probe = await runCli(['bridge', 'probe', '--port', port], { env: { QUACKD_HOME: home } });
      assert.equal(probe.code, 3, probe.stderr);
      assert.equal(probe.stderr, `quackd: cannot open ${port}: not a serial port ${WHERE}\n`);
      // The worker opens a robot's port with stty (src/bridge/tty.ts): the same words.
      const run = await runCli(['run', 'hello-world', '--robot', 'bench', '--no-memory'], { env: { QUACKD_HOME: home, QUACKD_PROVIDER: 'fake' } });
      assert.equal(run.code, 3, run.stdout + run.stderr);
      assert.ok(run.stdout.includes(`error — cannot open ${port}: not a serial port ${WHERE} · 0 steps`), run.stdout);
    }
  });
});
