/**
 * The `imu` line of `quackd health` and the imu block in `quackd config check`, for a servo-bus
 * duck as a user configures it: a BNO055 set up as a run sets it (the simulated chip with
 * sim_imu) reports its calibration; one that cannot be asked fails in one line naming the bus and
 * the address (or the missing addon); none configured is a warning saying what it costs; a bad
 * remap (an axis named twice, or axes mirrored) is refused by config check naming the setting.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { assertFreshBuild, runCli } from '../helpers/cli.js';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';

function home(duck: string): NodeJS.ProcessEnv {
  const dir = tempDir('quackd-health-imu-');
  writeFileSync(join(dir, 'config.yaml'), `robots:\n  duck: { body: microduck:feetech, port: /dev/null, ${duck} }\n`);
  return { QUACKD_HOME: dir };
}

async function imuLine(duck: string): Promise<{ status: string; detail: string }> {
  const r = await quackd(['health', '--robot', 'duck', '--json'], { env: home(duck) });
  const line = (JSON.parse(r.stdout) as { check: string; status: string; detail: string }[]).find((l) => l.check === 'imu');
  assert.ok(line !== undefined, r.stdout + r.stderr);
  return { status: line.status, detail: line.detail };
}

describe('the imu line', () => {
  it('a BNO055 set up as a run sets it: answering, IMUPLUS, its calibration sys/gyro/acc/mag', async () => {
    const l = await imuLine('imu: {}, sim_imu: /nonexistent/imu.json');
    assert.deepEqual(l, { status: 'ok', detail: 'simulated BNO055 (sim_imu) on i2c-1 at 0x28 answers (IMUPLUS, sensor fusion running): calibration sys 3 gyro 3 acc 3 mag 0' });
  });

  it('a BNO055 that cannot be asked fails in one line naming the bus and the address, or the addon missing', async () => {
    const l = await imuLine('imu: { bus: 99, address: 0x29 }');
    assert.equal(l.status, 'fail');
    assert.match(l.detail, /^(no BNO055 answers on i2c-99 at 0x29: .+|the i2c-bus addon is not installed\/built here: .+)$/);
  });

  it('none configured is a warning saying the motion verbs are refused', async () => {
    const l = await imuLine('bus_timeout_ms: 10');
    assert.deepEqual(l, { status: 'warn', detail: "none configured: walk, turn and kick are refused without one (an imu: block in the robot's settings)" });
  });

  it('config check refuses a remap naming a chip axis twice, naming the setting', async () => {
    const r = await quackd(['config', 'check'], { env: home('imu: { remap: "+x +x +z" }') });
    assert.notEqual(r.code, 0);
    assert.match(r.stdout + r.stderr, /imu\.remap: "\+x \+x \+z" names a chip axis twice/);
  });

  it('config check refuses a remap that mirrors the axes, at its file and line, suggesting a sign flip (the built CLI)', async () => {
    assertFreshBuild();
    for (const [remap, flipped] of [['+y +x +z', '+y +x -z'], ['+x +y -z', '+x +y +z']] as const) {
      const r = await runCli(['config', 'check'], { env: home(`imu: { remap: "${remap}" }`) });
      assert.notEqual(r.code, 0);
      const lines = (r.stdout + r.stderr).trim().split('\n');
      assert.equal(lines.length, 1, r.stdout + r.stderr);
      assert.match(lines[0] ?? '', /config\.yaml:2: robots\.duck\.imu\.remap: /);
      assert.ok(lines[0]?.includes(`"${remap}" mirrors the axes, which no BNO055 mounting gives`), lines[0]);
      assert.ok(lines[0]?.endsWith(`flip one sign, e.g. "${flipped}"`), lines[0]);
    }
  });
});
