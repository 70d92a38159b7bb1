/**
 * microduck:feetech and microduck:dynamixel walk in the MuJoCo twin through real packets: the
 * servo simulator at the far end of a pty answers for the twin's joints (servo-twin.ts),
 * and `quackd do` runs as a user runs it, the robot in the fleet's config. The feetech duck (an
 * Open Duck Mini v2) reads its trunk through its BNO055 (`imu: {}`, the simulated chip's
 * registers), the dynamixel duck the simulator's file directly. What is checked is where the twin
 * went, what the servos were told, and that torque is off again after the run.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { modelByName } from '../../../src/servo-bus/models.js';
import { quackd } from '../../helpers/quackd.js';
import { ServoTwinProcess } from '../../helpers/servo-twin-process.js';

for (const protocol of ['feetech', 'dynamixel'] as const) {
  describe(`microduck:${protocol} in the twin`, () => {
    let twin: ServoTwinProcess;
    let home: string;
    const torqueAt = modelByName(protocol === 'feetech' ? 'STS3215' : 'XL330-M288')!.registers.torqueEnable.address;
    before(async () => {
      twin = await ServoTwinProcess.start({ protocol });
      home = mkdtempSync(join(tmpdir(), 'quackd-servo-twin-home-'));
      writeFileSync(join(home, 'config.yaml'), `robots:\n  duck: { body: microduck:${protocol}, port: ${JSON.stringify(twin.port)}, sim_imu: ${JSON.stringify(twin.imuPath)},${protocol === 'feetech' ? ' imu: {},' : ''} bus_timeout_ms: 100 }\n`);
    });
    after(async () => {
      await twin?.close();
      rmSync(home, { recursive: true, force: true });
    });

    it('walks 1.0 m forward with --yes: the twin moves ahead, and torque is off after the run', async () => {
      const start = await twin.trunk();
      const r = await quackd(['do', 'walk', '1.0', '--yes', '--robot', 'duck'], { env: { QUACKD_HOME: home }, timeoutMs: 60_000 });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /walk 1\.00 +walked \d+\.\d s at/);
      const end = await twin.trunk();
      const along = (end.x - start.x) * Math.cos(start.yaw) + (end.y - start.y) * Math.sin(start.yaw);
      const goalWrites = await twin.goalWrites();
      console.log(`# ${protocol}: the twin went ${along.toFixed(2)} m, ${goalWrites} goal writes`);
      // No odometry: the walk is timed by the speed its manifest says the bundled walk makes good.
      assert.ok(along > 0.7 && along < 1.3, `asked 1.0 m, the twin went ${along.toFixed(2)} m along its heading`);
      assert.ok(goalWrites > 50, `${goalWrites} goal positions reached the twin`);
      for (const j of twin.joints) assert.equal((await twin.table(j.id))[torqueAt], 0, `${j.name}'s torque is off`);
      if (protocol === 'dynamixel') {
        // Armed with torque on (5 × 20 ms): the servos stop by themselves if quackd dies.
        const watchdog = modelByName('XL330-M288')!.registers.busWatchdog!.address;
        for (const j of twin.joints) assert.equal((await twin.table(j.id))[watchdog], 5, `${j.name}'s Bus Watchdog`);
      }
      // Each sync write of the torque register: every servo's one byte after its id (the address takes 1 byte on Feetech, 2 on Dynamixel, the length as much).
      const head = protocol === 'feetech' ? 2 : 4;
      const torqueWrites = (await twin.writes()).filter((w) => w.instruction === 'sync write' && w.params[0] === torqueAt);
      const values = torqueWrites.map((w) => [...new Set(w.params.slice(head).filter((_, i) => i % 2 === 1))]);
      assert.deepEqual(values, [[1], [0]], 'torque on for every servo before the walk, off for every servo after it');
    });

    it('plays patrol with --provider script: walk, turn round on the gyro, walk back, in the twin', async () => {
      const start = await twin.trunk();
      const r = await quackd(['run', 'patrol', '--provider', 'script', '--no-memory', '--robot', 'duck'], { env: { QUACKD_HOME: home }, timeoutMs: 120_000 });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /^ {2}2 {2}turn 180 +turned 1[5-9]\d° left \(gyro\)/m);
      const end = await twin.trunk();
      const turned = Math.abs(Math.atan2(Math.sin(end.yaw - start.yaw), Math.cos(end.yaw - start.yaw)));
      assert.ok(turned > (120 * Math.PI) / 180, `the twin turned ${Math.round((turned * 180) / Math.PI)}°`);
    });
  });
}
