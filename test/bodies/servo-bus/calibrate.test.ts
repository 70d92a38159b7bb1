/**
 * `quackd calibrate` and the servo-bus lines of `quackd health`, as a builder runs them over SSH:
 * the built CLI against the servo simulator at the far end of a pty, its servos placed at
 * the home pose plus known offsets (the horns as a builder mounted them). Health sees the pose off
 * before, calibrate finds the offsets and writes them into the robot's entry (comments and the rest
 * of the file kept, the old file backed up), and health then reads every joint within 0.02 rad of
 * home: the issue's done-when. Nothing moves: the only write on the wire is torque off, and health
 * writes nothing. A silent servo is one line naming it, with the config untouched.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, cpSync, lstatSync, mkdtempSync, readFileSync, readdirSync, realpathSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { parse } from 'yaml';
import { HOME_POSE } from '../../../src/bodies/microduck/mujoco/duck-spec.js';
import { BUS_SERVO_MODEL, OPEN_DUCK_MINI_V2, type JointRow } from '../../../src/bodies/microduck/servo-bus/joint-table.js';
import { bundledPolicyDir } from '../../../src/policy/bundled.js';
import { ServoSurvey } from '../../../src/bodies/microduck/servo-bus/survey.js';
import { decodeRegister, encodeRegister, modelByName, type ServoModel } from '../../../src/servo-bus/models.js';
import type { ProtocolName } from '../../../src/servo-bus/packet.js';
import { MAIN, assertFreshBuild, childEnv, runCli } from '../../helpers/cli.js';
import { HeldPty } from '../../helpers/held-pty.js';
import { onPath, waitFor } from '../../helpers/pty-pair.js';
import { ServoSim } from '../../helpers/servo-sim.js';
import { tempDir } from '../../helpers/tmp.js';

/** Where each servo's horn sits off the table's zero (rad): what calibrate must find. */
const MOUNTED = [0.1, -0.05, 0.2, -0.3, 0.07, 0.0, 0.15, -0.12, 0.04, -0.09, 0.06, -0.2, 0.25, -0.03];

const CONFIG = (port: string): string => `# the kitchen's duck: wired 2026-11-30
pilot:
  provider: fake # no model needed for a calibration

robots:
  # the Open Duck Mini v2 on the bench
  duck:
    body: microduck:feetech
    port: ${port} # the USB bus board
    bus_timeout_ms: 100
  xl:
    body: microduck:dynamixel
    port: ${port}
    bus_timeout_ms: 100
`;

/**
 * `quackd ARGS` on a terminal (util-linux's script gives it a pty, as an SSH session does), with
 * `answer` typed once `prompt` shows; what the terminal showed and the exit code. `beforeAnswer`
 * runs while the question waits.
 */
async function onTerminal(args: readonly string[], env: NodeJS.ProcessEnv, prompt: RegExp, answer: string, beforeAnswer: () => void): Promise<{ code: number | null; text: string }> {
  const quote = (w: string): string => `'${w.replace(/'/g, `'\\''`)}'`;
  const child = spawn('script', ['--quiet', '--return', '--command', [process.execPath, MAIN, ...args].map(quote).join(' '), '/dev/null'], { env: childEnv({ NO_COLOR: '1', QUACKD_LOG_JSON: '1', ...env }), stdio: ['pipe', 'pipe', 'pipe'] });
  let text = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (text += d));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    await waitFor(`the question (${prompt.source})`, () => prompt.test(text), 60_000);
    beforeAnswer();
    child.stdin.write(answer);
    const code = await Promise.race([closed, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no end after the answer:\n${text}`)), 60_000))]);
    return { code, text: text.replace(/\r/g, '') };
  } finally {
    child.kill('SIGKILL');
  }
}

interface HealthLine {
  readonly check: string;
  readonly status: string;
  readonly detail: string;
}

for (const protocol of ['feetech', 'dynamixel'] as const satisfies readonly ProtocolName[]) {
  const robot = protocol === 'feetech' ? 'duck' : 'xl';
  describe(`quackd calibrate and health on a ${protocol} duck`, () => {
    let pty: HeldPty;
    let sim: ServoSim;
    const homes = tempDir();
    let home: string;
    let configFile: string;
    const model = modelByName(BUS_SERVO_MODEL[protocol]) as ServoModel;
    const r = model.registers;
    const env = (): NodeJS.ProcessEnv => ({ QUACKD_HOME: home, QUACKD_MEMORY_DIR: join(home, 'memory') });
    const health = async (): Promise<HealthLine[]> => {
      const res = await runCli(['health', '--robot', robot, '--json', '--timeout', '60'], { env: env() });
      return JSON.parse(res.stdout) as HealthLine[];
    };
    const byName = (lines: readonly HealthLine[], check: string): HealthLine | undefined => lines.find((l) => l.check === check);
    /** Every servo where a builder holding the duck at home puts it: home through the mounted offsets, torque on (held by a killed quackd). */
    const placeAtHome = (pose: readonly number[] = HOME_POSE): void => {
      for (const [i, j] of OPEN_DUCK_MINI_V2.entries()) {
        const table = sim.table(j.id);
        const servoRad = j.direction * (pose[i] ?? 0) + (MOUNTED[i] ?? 0);
        table.set(encodeRegister(r.presentPosition, model.countsPerTurn / 2 + servoRad / r.presentPosition.unit, model.byteOrder), r.presentPosition.address);
        table[r.torqueEnable.address] = 1;
      }
    };

    before(async () => {
      assertFreshBuild();
      pty = await new HeldPty('quackd-calibrate-').open();
    });
    beforeEach(() => {
      sim?.close();
      sim = ServoSim.open(pty.far, { protocol, servos: OPEN_DUCK_MINI_V2.map((j) => ({ id: j.id, model: model.name })) });
      placeAtHome();
      home = mkdtempSync(join(homes, 'home-'));
      configFile = join(home, 'config.yaml');
      writeFileSync(configFile, CONFIG(pty.near));
    });
    after(async () => {
      sim?.close();
      await pty?.close();
    });

    it("calibrates to the pose its walk policy stands in: a policy of the Open Duck Mini's own model (its reference stance, the left knee at +1.37 rad)", async () => {
      // The reference runtime's stance (rustypot_position_hwi.py), in a walk policy's manifest.
      const stance = [0.002, 0.053, -0.63, 1.368, -0.784, 0, 0, 0, 0, -0.003, -0.065, 0.635, 1.379, -0.796];
      const walk = join(home, 'odm-walk');
      cpSync(bundledPolicyDir('walk'), walk, { recursive: true });
      const manifest = JSON.parse(readFileSync(join(walk, 'manifest.json'), 'utf8')) as Record<string, unknown>;
      writeFileSync(join(walk, 'manifest.json'), JSON.stringify({ ...manifest, home: stance }));
      writeFileSync(configFile, CONFIG(pty.near).replace(`  ${robot}:\n    body: microduck:${protocol}\n`, `  ${robot}:\n    body: microduck:${protocol}\n    policies: { walk: ${walk} }\n`));
      placeAtHome(stance);
      const res = await runCli(['calibrate', '--robot', robot, '--yes', '--json'], { env: env() });
      assert.equal(res.code, 0, res.stderr);
      const out = JSON.parse(res.stdout) as { joints: { name: string; offset: number }[] };
      for (const [i, j] of out.joints.entries()) assert.ok(Math.abs(j.offset - (MOUNTED[i] ?? 0)) < 0.002, `${j.name}: offset ${j.offset}, mounted ${MOUNTED[i]} (against the twin's pose it would be off by twice the knee)`);
      const pose = byName(await health(), 'pose');
      assert.equal(pose?.status, 'ok', JSON.stringify(pose));
      assert.ok(pose?.detail.includes(`of home (the walk policy's (${walk}))`), pose?.detail);
    });

    it('health sees the pose off home, calibrate writes the offsets, health then reads every joint within 0.02 rad; only torque off is written', async () => {
      const before = await health();
      assert.equal(byName(before, 'bus')?.status, 'ok', JSON.stringify(before));
      assert.match(byName(before, 'bus')?.detail ?? '', new RegExp(`^${protocol} at 1000000 baud on .* · all 14 servos of the joint table answer$`));
      assert.deepEqual(byName(before, 'servos'), { check: 'servos', status: 'ok', detail: `14 ${model.name}s, no alarm` });
      assert.match(byName(before, 'servo power')?.detail ?? '', /^\d+\.\d V · 31 °C$/);
      assert.equal(byName(before, 'torque')?.status, 'warn', 'torque on with nobody holding the bus');
      assert.match(byName(before, 'torque')?.detail ?? '', /^on in every servo with no quackd holding the bus: they hold their last goal .* quackd torque \w+ off$/);
      assert.equal(byName(before, 'pose')?.status, 'warn');
      assert.match(byName(before, 'pose')?.detail ?? '', /joints over 0\.02 rad from home: left_hip_yaw \+0\.100, left_hip_roll −0\.05\d, /);
      assert.deepEqual(sim.writes(), [], 'health writes nothing');

      const res = await runCli(['calibrate', '--robot', robot, '--yes', '--json'], { env: env() });
      assert.equal(res.code, 0, res.stderr);
      const out = JSON.parse(res.stdout) as { joints: { name: string; offset: number; previous: number; error_rad: number }[]; backup: string; max_error_rad: number };
      for (const [i, j] of out.joints.entries()) {
        assert.equal(j.name, OPEN_DUCK_MINI_V2[i]?.name);
        assert.ok(Math.abs(j.offset - (MOUNTED[i] ?? 0)) < 0.002, `${j.name}: offset ${j.offset}, mounted ${MOUNTED[i]}`);
        assert.equal(j.previous, 0);
        assert.ok(Math.abs(j.error_rad) < 0.001, `${j.name}: error ${j.error_rad}`);
      }

      // The config: the robot's joints now carry the offsets, everything else as it was written.
      const text = readFileSync(configFile, 'utf8');
      for (const kept of ["# the kitchen's duck: wired 2026-11-30", 'provider: fake # no model needed for a calibration', '# the Open Duck Mini v2 on the bench', '# the USB bus board']) assert.ok(text.includes(kept), `kept: ${kept}\n${text}`);
      const written = parse(text) as { robots: Record<string, { joints?: JointRow[]; port: string }> };
      const rows = written.robots[robot]?.joints ?? [];
      assert.deepEqual(rows.map((j) => [j.name, j.id, j.direction, j.min, j.max]), OPEN_DUCK_MINI_V2.map((j) => [j.name, j.id, j.direction, j.min, j.max]));
      assert.deepEqual(rows.map((j) => j.offset), out.joints.map((j) => j.offset));
      assert.equal(written.robots[robot === 'duck' ? 'xl' : 'duck']?.joints, undefined, 'the other robot untouched');
      assert.equal(readFileSync(out.backup, 'utf8'), CONFIG(pty.near), 'the old file kept whole');
      assert.match(out.backup, /config\.yaml\.bak-\d{8}-\d{6}$/);

      // Nothing moved: one sync write, torque off to every servo; never a goal, never torque on.
      const writes = sim.writes();
      assert.deepEqual(writes.map((w) => w.instruction), ['sync write']);
      const params = writes[0]?.params ?? [];
      const head = protocol === 'dynamixel' ? 4 : 2;
      assert.equal(params[0], r.torqueEnable.address, 'the torque register');
      assert.deepEqual(params.slice(head).filter((_, i) => i % 2 === 1), OPEN_DUCK_MINI_V2.map(() => 0), 'off on every servo');
      for (const j of OPEN_DUCK_MINI_V2) assert.equal(sim.table(j.id)[r.torqueEnable.address], 0, `${j.name}'s torque`);

      const afterwards = await health();
      assert.equal(byName(afterwards, 'pose')?.status, 'ok', JSON.stringify(afterwards));
      assert.match(byName(afterwards, 'pose')?.detail ?? '', /^every joint within 0\.02 rad of home \(the bundled walk's\) · max 0\.0\d{3} rad \(\w+\)$/);
      assert.deepEqual(byName(afterwards, 'torque'), { check: 'torque', status: 'ok', detail: 'off on every servo (limp)' });
      assert.equal(sim.writes().length, 1, 'health wrote nothing');

      // Run again, the table is in the file now: only its offsets change, the rows stay a line each.
      const calibrated = readFileSync(configFile, 'utf8');
      const again = await runCli(['calibrate', '--robot', robot, '--yes'], { env: env() });
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /^calibrate \w+ \(microduck:\w+\) · 14 \S+ on .* at 1000000 baud\nhome: the bundled walk's pose\ntorque off: read back from every servo\nhold \w+ in its home pose .*: --yes, taken as held\n/);
      assert.match(again.stdout, /\n {2}left_hip_yaw +20 +\+0\.\d{4} +\+0\.\d{4} +0\.0\d{3}\n/);
      // Within the same second as the first (a fast machine), its backup is `-2`: neither is overwritten.
      const kept = /\noffsets written to .*config\.yaml \(the old file kept beside it as (config\.yaml\.bak-\d{8}-\d{6}(?:-2)?)\) · max error 0\.0\d{3} rad \(\w+\)\n$/.exec(again.stdout);
      assert.ok(kept?.[1] !== undefined, again.stdout);
      assert.notEqual(join(dirname(configFile), kept[1]), out.backup);
      assert.equal(readFileSync(join(dirname(configFile), kept[1]), 'utf8'), calibrated, 'the second backup is the first calibration');
      assert.equal(readFileSync(out.backup, 'utf8'), CONFIG(pty.near), 'the first backup is still the old file');
      assert.equal(readFileSync(configFile, 'utf8').split('\n').filter((l) => l.includes('{ name: ')).length, 14 * 1, 'a row a line');
    });

    it('a joint whose servo turns the other way than the table says: its offset is written as read, with a warning that the other direction fits', async () => {
      // left_knee (servo 23) built mirrored: at home it reads −home, not +home, plus its horn's −0.3.
      const knee = 3;
      const servoRad = -(HOME_POSE[knee] ?? 0) + (MOUNTED[knee] ?? 0);
      sim.table(23).set(encodeRegister(r.presentPosition, model.countsPerTurn / 2 + servoRad / r.presentPosition.unit, model.byteOrder), r.presentPosition.address);
      const res = await runCli(['calibrate', '--robot', robot, '--yes', '--json'], { env: env() });
      assert.equal(res.code, 0, res.stderr);
      const out = JSON.parse(res.stdout) as { joints: { name: string; offset: number; other_direction_offset?: number }[] };
      assert.deepEqual(out.joints.filter((j) => j.other_direction_offset !== undefined).map((j) => j.name), ['left_knee']);
      assert.ok(Math.abs((out.joints[knee]?.other_direction_offset ?? 0) - (MOUNTED[knee] ?? 0)) < 0.002, JSON.stringify(out.joints[knee]));
      assert.match(res.stderr, /^quackd: warning: left_knee's offset \+2\.\d{4} rad is more than a horn a few teeth off; with direction -1 it would be −0\.(29|30)\d{2}: is its direction in joints: right\? \(a joint turning the wrong way walks mirrored\)\n$/);
    });

    it('a joint read past half a turn from home (mirrored, its horn 1 rad off): refused naming it and the direction that fits, the config as it was', async () => {
      // left_knee (servo 23) built mirrored and its horn 1 rad off: its offset would be past what the config takes (±π).
      const knee = 3;
      const servoRad = -(HOME_POSE[knee] ?? 0) - Math.sign(HOME_POSE[knee] ?? 1) * 1.0;
      sim.table(23).set(encodeRegister(r.presentPosition, model.countsPerTurn / 2 + servoRad / r.presentPosition.unit, model.byteOrder), r.presentPosition.address);
      const res = await runCli(['calibrate', '--robot', robot, '--yes'], { env: env() });
      assert.equal(res.code, 3, res.stdout + res.stderr);
      assert.match(res.stderr, /^quackd: calibrate: left_knee \(servo 23\) reads [+−]3\.\d{4} rad off its home angle, past half a turn, which no horn is: nothing written, the config is as it was \(is its direction in joints: right\? with direction -1 it would be [+−](0\.99|1\.00)\d{2}\)\n$/);
      assert.equal(readFileSync(configFile, 'utf8'), CONFIG(pty.near));
      assert.deepEqual(readdirSync(home).filter((f) => f.includes('.bak-')), [], 'no backup: nothing was written');
      const check = await runCli(['config', 'check'], { env: env() });
      assert.equal(check.code, 0, 'the config still reads: the next run is not locked out');
    });

    it('a servo that does not answer: one line naming it, exit 3, the config untouched and nothing written to any servo', async () => {
      sim.silence(23);
      const res = await runCli(['calibrate', '--robot', robot, '--yes'], { env: env() });
      assert.equal(res.code, 3, res.stdout);
      assert.match(res.stderr, /^quackd: calibrate: left_knee \(servo 23\) did not answer on \S+ before torque off: nothing written, the config is as it was \(check its cable and power; quackd bus scan lists who answers and their alarms\)\n$/);
      assert.equal(res.stderr.split('\n').filter((l) => l.startsWith('quackd:')).length, 1);
      assert.equal(readFileSync(configFile, 'utf8'), CONFIG(pty.near));
      assert.deepEqual(readdirSync(home).filter((f) => f.includes('.bak-')), [], 'no backup: nothing was written');
      assert.deepEqual(sim.writes(), []);

      const lines = await health();
      assert.equal(byName(lines, 'bus')?.status, 'fail');
      assert.match(byName(lines, 'bus')?.detail ?? '', /· 13 of 14 servos answer; left_knee \(servo 23\) did not answer$/);
      assert.match(byName(lines, 'pose')?.detail ?? '', /\(13 of 14 joints read\)/);
      assert.match(byName(lines, 'torque')?.detail ?? '', /^on in the 13 servos read with no quackd holding the bus: .* · not read: left_knee \(servo 23\)$/);
      sim.silence(23, false);
      for (const j of OPEN_DUCK_MINI_V2) sim.table(j.id)[r.torqueEnable.address] = 0;
      sim.silence(31);
      assert.deepEqual(byName(await health(), 'torque'), { check: 'torque', status: 'warn', detail: 'off on the 13 servos read (limp) · not read: head_pitch (servo 31)' });
    });

    it("health's servo power judges each servo against its own limits, naming the servo: under its minimum voltage and over its temperature limit fail, near its limit warns", async () => {
      const volts = (id: number, v: number): void => sim.table(id).set(encodeRegister(r.presentVoltage, Math.round(v / r.presentVoltage.unit), model.byteOrder), r.presentVoltage.address);
      const minimum = decodeRegister(r.minVoltageLimit, sim.table(23).subarray(r.minVoltageLimit.address, r.minVoltageLimit.address + r.minVoltageLimit.size), model.byteOrder) * r.minVoltageLimit.unit;
      sim.table(13)[r.presentTemperature.address] = 67;
      let power = byName(await health(), 'servo power');
      assert.equal(power?.status, 'warn', JSON.stringify(power));
      assert.match(power?.detail ?? '', /· right_knee \(servo 13\) at 67 °C, near its 70 °C limit$/);
      volts(23, minimum - 0.3);
      sim.table(31)[r.presentTemperature.address] = 88;
      power = byName(await health(), 'servo power');
      assert.equal(power?.status, 'fail', JSON.stringify(power));
      const range = `${minimum.toFixed(1)}–${(minimum * 2).toFixed(1)} V`;
      assert.equal(power?.detail, `${(minimum - 0.3).toFixed(1)}–${protocol === 'feetech' ? '7.4' : '5.0'} V · 31–88 °C · left_knee (servo 23) at ${(minimum - 0.3).toFixed(1)} V, outside its ${range}; head_pitch (servo 31) at 88 °C, at or over its 70 °C limit; right_knee (servo 13) at 67 °C, near its 70 °C limit`);
    });

    it('a duck not held still (let go after --yes, its left knee sagging as it sinks): one line naming the joint, exit 3, the config and its offsets as they were', async () => {
      // The knee folds at 0.5 rad/s once torque is off: a standing duck nobody holds, read on its way down.
      const knee = OPEN_DUCK_MINI_V2[3] as JointRow;
      const start = Date.now();
      const sag = setInterval(() => {
        const servoRad = knee.direction * (HOME_POSE[3] ?? 0) + (MOUNTED[3] ?? 0) - (0.5 * (Date.now() - start)) / 1000;
        sim.table(knee.id).set(encodeRegister(r.presentPosition, model.countsPerTurn / 2 + servoRad / r.presentPosition.unit, model.byteOrder), r.presentPosition.address);
      }, 5);
      try {
        const res = await runCli(['calibrate', '--robot', robot, '--yes'], { env: env() });
        assert.equal(res.code, 3, res.stdout + res.stderr);
        assert.match(res.stderr, /^quackd: calibrate: \w+ moved while it was read: left_knee \(servo 23\) by 0\.\d{3} rad in 0\.\d s: nothing written, the config is as it was \(hold it still in its home pose, then run quackd calibrate again\)\n$/);
      } finally {
        clearInterval(sag);
      }
      assert.equal(readFileSync(configFile, 'utf8'), CONFIG(pty.near));
      assert.deepEqual(readdirSync(home).filter((f) => f.includes('.bak-')), [], 'no backup: nothing was written');
    });

    it('two servos on one id (their replies garble each other): named as garbled, with the shared id to check, nothing written', async () => {
      sim.garble(23, 3);
      const res = await runCli(['calibrate', '--robot', robot, '--yes'], { env: env() });
      assert.equal(res.code, 3, res.stdout);
      assert.match(res.stderr, /^quackd: calibrate: left_knee \(servo 23\) answered garbled \(bad checksum or cut short: a noisy cable, or another servo on the same id\) on \S+ before torque off: nothing written, the config is as it was \(.*\)\n$/);
      assert.equal(readFileSync(configFile, 'utf8'), CONFIG(pty.near));
      assert.deepEqual(sim.writes(), []);
    });

    it('a servo raising an alarm (its angle sensor, its load): named as a silent one is, and nothing written to the config or any servo', async () => {
      // Feetech's angle sensor and overload bits; Dynamixel's alert bit (its Hardware Error Status says which).
      sim.raise(23, protocol === 'feetech' ? 0x22 : 0x80);
      const res = await runCli(['calibrate', '--robot', robot, '--yes'], { env: env() });
      assert.equal(res.code, 3, res.stdout);
      const alarm = protocol === 'feetech' ? 'angle sensor, overload' : 'hardware error';
      assert.match(res.stderr, new RegExp(`^quackd: calibrate: left_knee \\(servo 23\\) raised ${alarm} on \\S+ before torque off: nothing written, the config is as it was \\(.*\\)\n$`));
      assert.equal(readFileSync(configFile, 'utf8'), CONFIG(pty.near));
      assert.deepEqual(readdirSync(home).filter((f) => f.includes('.bak-')), [], 'no backup: nothing was written');
      assert.deepEqual(sim.writes(), []);
    });

    it('on a terminal it asks once torque is off, and reads nothing until the person says the duck is held; no leaves the config as it was', { skip: onPath('script') ? undefined : 'needs script (util-linux)' }, async () => {
      const question = /hold \w+ in its home pose \(standing as a walk starts: hips and knees bent, head level\) — confirm\? \[y\/N\] $/;
      for (const j of OPEN_DUCK_MINI_V2) sim.table(j.id)[r.torqueEnable.address] = 0; // limp already: the one question is the hold
      let looksBefore = 0;
      const no = await onTerminal(['calibrate', '--robot', robot], env(), question, 'n\n', () => {
        assert.deepEqual(sim.writes().map((w) => w.instruction), ['sync write'], 'torque off is sent before the question');
        looksBefore = sim.received.length;
      });
      assert.equal(no.code, 1, no.text);
      assert.match(no.text, /\ntorque off: read back from every servo\n/);
      assert.match(no.text, /quackd: calibrate: not confirmed: nothing written, the config is as it was \(torque is off\)\n$/);
      assert.equal(sim.received.length, looksBefore, 'nothing read or written after a no');
      assert.equal(readFileSync(configFile, 'utf8'), CONFIG(pty.near));

      const yes = await onTerminal(['calibrate', '--robot', robot], env(), question, 'y\n', () => undefined);
      assert.equal(yes.code, 0, yes.text);
      assert.match(yes.text, /\noffsets written to .*config\.yaml/);
      assert.ok(sim.writes().every((w) => w.instruction === 'sync write' && w.params[0] === r.torqueEnable.address), 'only torque off, twice');
    });

    it('on a terminal with torque on (a killed quackd held the duck): it asks for the duck to be held before torque goes off; no sends nothing', { skip: onPath('script') ? undefined : 'needs script (util-linux)' }, async () => {
      const question = /torque is on in all 14 servos, and turning it off lets a standing duck fall: hold \w+ now — confirm\? \[y\/N\] $/;
      const no = await onTerminal(['calibrate', '--robot', robot], env(), question, 'n\n', () => {
        assert.deepEqual(sim.writes(), [], 'nothing written while it asks');
      });
      assert.equal(no.code, 1, no.text);
      assert.match(no.text, /\nquackd: calibrate: not confirmed: nothing written, the config is as it was \(nothing sent to a servo: torque is still on\)\n$/);
      assert.deepEqual(sim.writes(), [], 'torque left on: the duck still stands');
      for (const j of OPEN_DUCK_MINI_V2) assert.equal(sim.table(j.id)[r.torqueEnable.address], 1, `${j.name}'s torque`);
      assert.equal(readFileSync(configFile, 'utf8'), CONFIG(pty.near));
    });

    it('a port another program holds (a running quackd serve): health says so and reads nothing, calibrate refuses in one line', async () => {
      const holder = await ServoSurvey.open(protocol, { port: pty.near, baud: 1_000_000, timeoutMs: 100 });
      try {
        const lines = await health();
        assert.deepEqual(byName(lines, 'bus'), { check: 'bus', status: 'warn', detail: `${pty.near} is held by another program (quackd serve holding ${robot}?): not read here` });
        assert.equal(byName(lines, 'pose'), undefined);
        const res = await runCli(['calibrate', '--robot', robot, '--yes'], { env: env() });
        assert.equal(res.code, 3);
        assert.match(res.stderr, /^quackd: calibrate: cannot open \S+: another program has it open: nothing written, the config is as it was \(another quackd run, or a serial monitor\?\)\n$/);
        assert.equal(readFileSync(configFile, 'utf8'), CONFIG(pty.near));
        assert.deepEqual(sim.received, []);
      } finally {
        await holder.close();
      }
    });

    it('a config file this user cannot write: refused before anything is sent to a servo', { skip: process.getuid?.() === 0 ? 'root may write any file' : undefined }, async () => {
      chmodSync(configFile, 0o444);
      const res = await runCli(['calibrate', '--robot', robot, '--yes'], { env: env() });
      assert.equal(res.code, 3);
      assert.match(res.stderr, /^quackd: cannot write .*config\.yaml: EACCES \(the file is not yours to write: run as its owner, sudo for \/etc\/quackd\/config\.yaml\)\n$/);
      assert.deepEqual(sim.received, []);
    });

    it('a config symlinked as install.sh links it, root:65534 0640: written at its target, still a link, its group and mode kept', async () => {
      // /var/lib/quackd/config.yaml → /etc/quackd/config.yaml; the service's user reads it through its group.
      const etc = mkdtempSync(join(home, 'etc-'));
      const target = join(etc, 'config.yaml');
      renameSync(configFile, target);
      symlinkSync(target, configFile);
      chownSync(target, 0, 65534);
      chmodSync(target, 0o640);
      const res = await runCli(['calibrate', '--robot', robot, '--yes'], { env: env() });
      assert.equal(res.code, 0, res.stderr);
      assert.ok(lstatSync(configFile).isSymbolicLink(), 'the config is still a link');
      assert.equal(realpathSync(configFile), target);
      const rows = (parse(readFileSync(target, 'utf8')) as { robots: Record<string, { joints?: JointRow[] }> }).robots[robot]?.joints ?? [];
      assert.equal(rows.length, 14, 'the offsets are in the link\'s target');
      const { uid, gid, mode } = statSync(target);
      assert.deepEqual({ uid, gid, mode: mode & 0o777 }, { uid: 0, gid: 65534, mode: 0o640 });
      assert.match(res.stdout, new RegExp(`the old file kept beside it as ${etc}/config\\.yaml\\.bak-\\d{8}-\\d{6}\\)`));
    });

    it('a robot whose entry is an alias of another (duck2: *d): refused before torque off, nothing sent to a servo', async () => {
      writeFileSync(configFile, CONFIG(pty.near).replace(`  ${robot}:\n`, `  ${robot}: &d\n`) + `  ${robot}2: *d\n`);
      const res = await runCli(['calibrate', '--robot', `${robot}2`, '--yes'], { env: env() });
      assert.notEqual(res.code, 0);
      assert.deepEqual(sim.received, [], 'nothing sent: torque stays as it was');
      assert.match(res.stderr, new RegExp(`^quackd: .*config\\.yaml: robots\\.${robot}2 is not a robot's entry to write the offsets into \\(an alias of another\\? give it its own entry\\)\n$`));
    });

    it('without a terminal it is refused before anything is sent, unless --yes', async () => {
      const res = await runCli(['calibrate', '--robot', robot], { env: env() });
      assert.equal(res.code, 2);
      assert.match(res.stderr, /^quackd: calibrate: it waits while you hold the duck in its home pose, and there is no terminal to wait on/);
      assert.deepEqual(sim.received, []);
    });
  });
}
