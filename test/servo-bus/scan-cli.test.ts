/**
 * `quackd bus scan` as a builder runs it over SSH: the built CLI against the servo simulator at
 * the far end of a pty. The right models for both protocols, a silent servo absent, a
 * garbled reply asked again (and warned about), never a write on the wire, and the one-line
 * errors for a missing port, a port refused, and a bus where nothing answered.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { MAIN, assertFreshBuild, childEnv, outputOf, runCli } from '../helpers/cli.js';
import { HeldPty } from '../helpers/held-pty.js';
import { ServoSim, type ReceivedInstruction, type ServoSimOptions } from '../helpers/servo-sim.js';
import { ServoSurvey } from '../../src/bodies/microduck/servo-bus/survey.js';
import { tempDir } from '../helpers/tmp.js';

interface Listed {
  readonly servos: { id: number; model: number; name: string | null; firmware: string; alarms: string[] }[];
  readonly garbled: number[];
  readonly garbled_replies: number;
  readonly protocol: string;
  readonly ids: { from: number; to: number; count: number };
}


/**
 * Every id from `from` to `to` pinged, once; a servo that is there may be asked again when its
 * answer came after the timeout (scan.ts asks late answerers again: a loaded host reads late).
 */
function assertPingedOnce(received: readonly ReceivedInstruction[], from: number, to: number, bus: ServoSimOptions): void {
  const pings = received.filter((x) => x.instruction === 'ping').map((x) => x.id);
  const present = new Set(bus.servos.map((servo) => servo.id));
  const counts = new Map<number, number>();
  for (const id of pings) counts.set(id, (counts.get(id) ?? 0) + 1);
  assert.deepEqual([...counts.keys()].sort((a, b) => a - b), Array.from({ length: to - from + 1 }, (_, i) => from + i), 'every id pinged');
  const again = [...counts].filter(([id, n]) => n > 1 && !present.has(id));
  assert.deepEqual(again, [], 'only a servo that is there is asked again (a late answer), never an absent id');
}

describe('quackd bus scan', () => {
  let pty: HeldPty;
  let sim: ServoSim | undefined;
  // A patient --timeout: the simulator answers from this test process, which a loaded machine may
  // not schedule for a while (the CLI's own side of that race is the bus's I/O grace), and a servo
  // missed for that is not what these tests are about.
  const scan = (args: readonly string[]) => runCli(['bus', 'scan', '--port', pty.near, '--timeout', '300', ...args], { env: { QUACKD_HOME: tempDir() }, timeoutMs: 60_000 });
  const start = (options: ServoSimOptions): ServoSim => {
    sim = ServoSim.open(pty.far, options);
    return sim;
  };

  before(async () => {
    assertFreshBuild();
    pty = await new HeldPty('quackd-servo-bus-').open();
  });
  afterEach(() => {
    sim?.close();
    sim = undefined;
  });
  after(async () => {
    await pty?.close();
  });

  const duck: ServoSimOptions = {
    protocol: 'feetech',
    servos: [
      ...[1, 2, 3, 4, 5, 6, 7, 8].map((id) => ({ id, model: 'STS3215' })),
      { id: 12, model: 'SCS0009', firmware: [2, 4] },
    ],
  };

  it('lists the Feetech servos that answer, with model, name and firmware; a silent one is absent; nothing is written', async () => {
    const s = start(duck);
    s.silence(7);
    const r = await scan(['--ids', '0-15', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as Listed;
    assert.deepEqual(
      report.servos.map((x) => [x.id, x.model, x.name, x.firmware]),
      [
        [1, 777, 'STS3215', '3.10'],
        [2, 777, 'STS3215', '3.10'],
        [3, 777, 'STS3215', '3.10'],
        [4, 777, 'STS3215', '3.10'],
        [5, 777, 'STS3215', '3.10'],
        [6, 777, 'STS3215', '3.10'],
        [8, 777, 'STS3215', '3.10'],
        [12, 1284, 'SCS0009', '2.4'],
      ],
    );
    assert.deepEqual(report.ids, { from: 0, to: 15, count: 16 });
    assert.deepEqual(
      [...new Set(s.received.map((x) => x.instruction))].sort(),
      ['ping', 'read'],
    );
    assert.deepEqual(s.writes(), [], 'a scan never sends a write');
    assertPingedOnce(s.received, 0, 15, duck);
  });

  it('prints a table a person reads, one line a servo and a count', async () => {
    const s = start(duck);
    s.raise(4, 0x20);
    const r = await scan(['--ids', '1-5']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^bus +.* · feetech at 1000000 baud · ids 1–5\n/);
    assert.match(r.stdout, /\n +id +model +name +firmware +alarms\n +1 +777 +STS3215 +3\.10 +—\n/);
    assert.match(r.stdout, /\n +4 +777 +STS3215 +3\.10 +overload\n/);
    assert.match(r.stdout, /\n5 servos answered \(5 ids pinged in \d+\.\d s\)\n$/);
    // README shows this table: the same columns, the same widths
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const shown = readme.slice(readme.indexOf('$ quackd bus scan')).split('\n');
    const printed = r.stdout.split('\n');
    assert.equal(shown[2], printed[1], 'the column header');
    assert.equal(shown[3], printed[2], 'a servo line');
  });

  it('a garbled reply is asked again: the servo is listed, and the damage is a warning and exit 3', async () => {
    const s = start(duck);
    s.garble(3);
    s.cut(5);
    const r = await scan(['--ids', '1-6', '--json']);
    assert.equal(r.code, 3, r.stderr);
    const report = JSON.parse(r.stdout) as Listed;
    assert.deepEqual(
      report.servos.map((x) => x.id),
      [1, 2, 3, 4, 5, 6],
    );
    assert.deepEqual(report.garbled, []);
    assert.equal(report.garbled_replies, 2, 'the garbled reply and the cut one');
    assert.match(r.stderr, /^quackd: warning: \d+ garbled repl(y|ies) on .* \(check the cable, --baud 1000000, and that no two servos share an id\)\n$/);
    assert.deepEqual(s.writes(), []);
  });

  it('a servo whose answer comes after --timeout (a loaded Pi, a slow USB adapter) is found all the same, and nothing is written', async () => {
    // Every answer 30 ms late against a 5 ms timeout: each lands in a later id's turn. Before, the
    // scan called them all silent (a loaded host's stall once hid a run of four servos this way).
    const s = start(duck);
    s.lag(30, 60_000);
    const r = await runCli(['bus', 'scan', '--port', pty.near, '--timeout', '5', '--ids', '0-15', '--json'], { env: { QUACKD_HOME: tempDir() }, timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as Listed;
    assert.deepEqual(report.servos.map((x) => [x.id, x.name]), [...[1, 2, 3, 4, 5, 6, 7, 8].map((id) => [id, 'STS3215']), [12, 'SCS0009']]);
    assert.deepEqual(s.writes(), [], 'a scan never sends a write');
  });

  it('finds Dynamixel servos by the model in their ping, and reads what an alert bit means', async () => {
    const s = start({
      protocol: 'dynamixel',
      servos: [
        { id: 1, model: 'XL330-M288' },
        { id: 2, model: 'XL330-M077' },
        { id: 3, model: 'XL430-W250', firmware: [46] },
        { id: 4, model: 'XC330-M288' },
      ],
    });
    s.raise(2, 0x80);
    s.table(2)[70] = 0x24; // Hardware Error Status: overheating and overload
    const r = await scan(['--protocol', 'dynamixel', '--ids', '0-6', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as Listed;
    assert.deepEqual(
      report.servos.map((x) => [x.id, x.model, x.name, x.firmware, x.alarms]),
      [
        [1, 1200, 'XL330-M288', '52', []],
        [2, 1190, 'XL330-M077', '52', ['overheat', 'overload']],
        [3, 1060, 'XL430-W250', '46', []],
        [4, 1240, 'XC330-M288', '52', []],
      ],
    );
    assert.deepEqual(s.writes(), []);
  });

  it('pings ids 0–252 by default', async () => {
    const s = start(duck);
    const r = await scan(['--json', '--timeout', '5']); // the last --timeout wins: absent ids are quick
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual((JSON.parse(r.stdout) as Listed).ids, { from: 0, to: 252, count: 253 });
    assertPingedOnce(s.received, 0, 252, duck);
  });

  it('nothing answered: one line naming the protocol and baud tried, suggesting the other, exit 3', async () => {
    start({ protocol: 'dynamixel', servos: [{ id: 1, model: 'XL330-M288' }] });
    const r = await scan(['--ids', '0-3']);
    assert.equal(r.code, 3);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^quackd: no feetech servo answered on \S+ at 1000000 baud \(ids 0–3\) \(is it powered\? try --protocol dynamixel, or --baud 57600 \(Feetech ships at 1000000, Dynamixel X at 57600\)\)\n$/);
  });

  it('an adapter pulled mid-scan ends it in one line, exit 3', async () => {
    start(duck);
    const scanning = runCli(['bus', 'scan', '--port', pty.near], { env: { QUACKD_HOME: tempDir() }, timeoutMs: 30_000 });
    await new Promise((r) => setTimeout(r, 1500));
    sim?.close();
    sim = undefined;
    await pty.unplug();
    const r = await scanning;
    await pty.open();
    assert.equal(r.code, 3, r.stdout);
    assert.match(r.stderr, /^quackd: serial link to \S+ lost during the scan \(is the adapter still plugged in\?\)\n$/);
  });

  it('a port another program holds (a running quackd serve): one line saying so, exit 3, nothing sent', async () => {
    const s = start(duck);
    const holder = await ServoSurvey.open('feetech', { port: pty.near, baud: 1_000_000, timeoutMs: 100 });
    try {
      const r = await scan(['--ids', '1-3']);
      assert.equal(r.code, 3, r.stderr);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /^quackd: cannot open \S+: another program has it open \(another quackd run, or a serial monitor\?\)\n$/);
      assert.deepEqual(s.received, []);
    } finally {
      await holder.close();
    }
  });

  it('bad flags are usage errors, exit 2', async () => {
    const proto = await scan(['--protocol', 'dynamixle']);
    assert.equal(proto.code, 2);
    assert.match(proto.stderr, /^quackd: bus scan: --protocol must be feetech or dynamixel, not "dynamixle" \(did you mean "dynamixel"\?\)/);
    const ids = await scan(['--ids', '9-3']);
    assert.equal(ids.code, 2);
    assert.match(ids.stderr, /^quackd: bus scan: --ids: 9-3 runs backwards\n/);
  });
});

describe('quackd bus scan: the port', () => {
  it('--help says what it does, that it never writes, and shows an example', async () => {
    const r = await runCli(['bus', '--help'], { env: { QUACKD_HOME: tempDir() } });
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^usage: quackd bus scan --port PATH/);
    assert.match(r.stdout, /never a write/);
    assert.match(r.stdout, /\nexample: quackd bus scan --port /);
  });

  it('a missing port is one line and exit 3', async () => {
    const r = await runCli(['bus', 'scan', '--port', '/dev/serial/by-id/no-such-bus'], { env: { QUACKD_HOME: tempDir() } });
    assert.equal(r.code, 3);
    assert.match(r.stderr, /^quackd: serial port \/dev\/serial\/by-id\/no-such-bus not found \(.+\)\n$/);
  });

  it('a missing --port is a usage error, exit 2', async () => {
    const r = await runCli(['bus', 'scan'], { env: { QUACKD_HOME: tempDir() } });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^quackd: bus scan: --port is required/);
  });

  it('a port without permission says so and how to get it, exit 3', async () => {
    assertFreshBuild();
    const dir = tempDir();
    chmodSync(dir, 0o755);
    const port = join(dir, 'ttyUSB0');
    writeFileSync(port, '');
    chmodSync(port, 0o600);
    // root opens anything: the scan runs as nobody, as a builder not yet in the dialout group
    const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    if (process.getuid?.() !== 0) chmodSync(port, 0o000);
    const child = spawn(process.execPath, [MAIN, 'bus', 'scan', '--port', port], { env: childEnv({ NO_COLOR: '1', QUACKD_HOME: dir }), stdio: ['ignore', 'pipe', 'pipe'], ...asNobody });
    const r = await outputOf(child);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /^quackd: cannot open \S*ttyUSB0: no permission \(add yourself to the dialout group, then log in again\)\n$/);
  });
});
