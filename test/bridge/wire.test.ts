/**
 * The host firmware's wire, as the built CLI meets it: the port quackd opens is one pty whose
 * master only the rig and the firmware hold (rig.ts: held-pty.ts, handed over pty-cable.ts), with
 * nothing relaying between (it was a socat relay, which a loaded host starved and every machine
 * running these tests had to install). Unplugged while the firmware runs on (--reopen), no one
 * holds the pty any more and quackd says the port is not there; plugged back in, the same
 * firmware (the same boot id) answers.
 */
import assert from 'node:assert/strict';
import { existsSync, realpathSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { assertFreshBuild, runCli } from '../helpers/cli.js';
import { rigScheduling } from '../helpers/hardware-priority.js';
import { commandOf, mastersOf, schedulingOf } from '../helpers/pty-holders.js';
import { tempDir } from '../helpers/tmp.js';
import { Rig, missingTools } from './rig.js';

/** The pty behind `link`: its index, N of /dev/pts/N. */
function ptyIndex(link: string): number {
  const pts = /^\/dev\/pts\/(\d+)$/.exec(realpathSync(link));
  assert.ok(pts !== null, `${link} leads to ${realpathSync(link)}, not a pty`);
  return Number(pts[1]);
}

const bootOf = (stdout: string): number => (JSON.parse(stdout) as { hello: { boot: number } }).hello.boot;

describe('the host firmware\'s wire', { skip: missingTools() }, () => {
  let rig: Rig;
  before(async () => {
    assertFreshBuild();
    rig = await Rig.start(['--reopen']);
  });
  after(async () => {
    await rig?.cleanup();
  });

  let boot: number | undefined;

  it('is one pty the firmware holds with the rig, at the rig\'s priority: bridge probe answers through it', async () => {
    const r = await runCli(['bridge', 'probe', '--port', rig.hostPath, '--pings', '3', '--json'], { env: { QUACKD_HOME: tempDir() } });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    boot = bootOf(r.stdout);

    const others = mastersOf(ptyIndex(rig.hostPath)).filter((pid) => pid !== process.pid);
    assert.equal(others.length, 1, `the pty's master is held, beside the rig, by ${others.map(commandOf).join('; ') || 'no one'}`);
    const holder = others[0]!;
    assert.match(commandOf(holder), /quackd-fw-host --cable /, 'the firmware itself holds the master, with no relay between');
    if (rigScheduling().startsWith('SCHED_FIFO')) assert.deepEqual(schedulingOf(holder), { policy: 1, priority: 20 }, 'the firmware runs under SCHED_FIFO 20');
  });

  it('pulled while the firmware runs on, the port goes as a USB adapter\'s does; plugged back in, the same firmware answers', async () => {
    const index = ptyIndex(rig.hostPath);
    await rig.unplug({ keepFirmware: true });
    assert.equal(existsSync(rig.hostPath), false, 'the link is gone');
    assert.deepEqual(mastersOf(index).map(commandOf), [], 'no one holds the pty any more');
    const gone = await runCli(['bridge', 'probe', '--port', rig.hostPath], { env: { QUACKD_HOME: tempDir() } });
    assert.equal(gone.code, 3, gone.stdout + gone.stderr);
    assert.match(gone.stderr, /^quackd: serial port \S+ not found/);

    await rig.startLink();
    const back = await runCli(['bridge', 'probe', '--port', rig.hostPath, '--pings', '3', '--json'], { env: { QUACKD_HOME: tempDir() } });
    assert.equal(back.code, 0, back.stdout + back.stderr);
    assert.equal(bootOf(back.stdout), boot, 'the firmware ran on: a blip, not a reboot');
  });
});
