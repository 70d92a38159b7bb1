/**
 * The servo twin's wire, as the built CLI meets it: the port a body opens is one pty whose master
 * the twin's own process holds (held-pty.ts), at the rig's priority, with nothing relaying between
 * (a socat relay's two ptys starved under load: bus cycles of 100 ms and more, a patrol that fell
 * one run in eight). Pulled, the port goes as a USB adapter's does: no one holds the pty any more,
 * and quackd says the port is not there.
 */
import assert from 'node:assert/strict';
import { existsSync, realpathSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { OPEN_DUCK_MINI_V2 } from '../../../src/bodies/microduck/servo-bus/joint-table.js';
import { assertFreshBuild, runCli } from '../../helpers/cli.js';
import { rigScheduling } from '../../helpers/hardware-priority.js';
import { commandOf, mastersOf, schedulingOf } from '../../helpers/pty-holders.js';
import { ServoTwinProcess } from '../../helpers/servo-twin-process.js';
import { tempDir } from '../../helpers/tmp.js';

describe('the servo twin\'s wire', () => {
  let twin: ServoTwinProcess;
  before(async () => {
    assertFreshBuild();
    twin = await ServoTwinProcess.start({ protocol: 'feetech' });
  });
  after(async () => {
    await twin?.close();
  });

  it('is one pty the twin holds itself, at the rig\'s priority: bus scan finds every servo through it', async () => {
    const r = await runCli(['bus', 'scan', '--port', twin.port, '--ids', '0-40', '--json'], { env: { QUACKD_HOME: tempDir() }, timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const found = (JSON.parse(r.stdout) as { servos: { id: number }[] }).servos.map((s) => s.id);
    assert.deepEqual(found, OPEN_DUCK_MINI_V2.map((j) => j.id).sort((a, b) => a - b));

    const pts = /^\/dev\/pts\/(\d+)$/.exec(realpathSync(twin.port));
    assert.ok(pts !== null, `${twin.port} leads to ${realpathSync(twin.port)}, not a pty`);
    const holders = mastersOf(Number(pts[1]));
    assert.equal(holders.length, 1, `the pty's master is held by ${holders.map(commandOf).join('; ') || 'no one'}`);
    const holder = holders[0]!;
    assert.match(commandOf(holder), /servo-twin-main\.ts/, 'the twin itself holds the master, with no relay between');
    if (rigScheduling().startsWith('SCHED_FIFO')) assert.deepEqual(schedulingOf(holder), { policy: 1, priority: 20 }, 'the twin answers under SCHED_FIFO 20');
  });

  it('pulled, the port goes as a USB adapter\'s does, and quackd says it is not there', async () => {
    const index = Number(/\d+$/.exec(realpathSync(twin.port))?.[0]);
    await twin.unplug();
    assert.equal(existsSync(twin.port), false, 'the link is gone');
    assert.deepEqual(mastersOf(index), [], 'no one holds the pty any more');
    const r = await runCli(['bus', 'scan', '--port', twin.port], { env: { QUACKD_HOME: tempDir() }, timeoutMs: 60_000 });
    assert.equal(r.code, 3);
    assert.match(r.stderr, /^quackd: serial port \S+ not found \(.+\)\n$/);
  });
});
