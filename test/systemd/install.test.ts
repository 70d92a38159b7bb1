/**
 * The service as a Pi's owner installs it: the unit passes systemd's own check, install.sh puts
 * the user, the config, the data directory and the enabled unit in place, and a second run changes
 * nothing (the config someone edited stays as they left it). install.sh runs into a temp root.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { quackd } from '../helpers/quackd.js';
import { skipOutsideCi } from '../helpers/skip.js';
import { fakeRoot } from '../helpers/root.js';

const SYSTEMD = fileURLToPath(new URL('../../systemd/', import.meta.url));
const UNIT = join(SYSTEMD, 'quackd.service');
const INSTALL = join(SYSTEMD, 'install.sh');

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

/** Every path under `root` with its type, mode, owner and content (or link target). */
function snapshot(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      const st = lstatSync(path);
      const what = st.isSymbolicLink() ? `-> ${readlinkSync(path)}` : st.isDirectory() ? 'dir' : readFileSync(path, 'utf8');
      const line = `${relative(root, path)} ${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid} ${what}`;
      return st.isDirectory() && !st.isSymbolicLink() ? [line, ...walk(path)] : [line];
    });
  return walk(root).sort();
}

/** A root with the accounts a Debian install starts with: root, and the dialout group. */
const newRoot = (): string => fakeRoot('quackd-root-');

function install(root: string, ...args: string[]) {
  const r = spawnSync(INSTALL, args, { env: { PATH: process.env['PATH'], QUACKD_ROOT: root }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r;
}

describe('systemd/quackd.service', () => {
  it('passes systemd-analyze verify without a warning', { skip: skipOutsideCi(has('systemd-analyze') ? undefined : 'systemd-analyze is not installed') }, () => {
    const r = spawnSync('systemd-analyze', ['verify', UNIT], { encoding: 'utf8' });
    // verify exits 0 on a misspelt value too ("Failed to parse…, ignoring"): its words count.
    assert.equal(r.status, 0, r.stderr);
    assert.equal(`${r.stdout}${r.stderr}`.trim(), '');
  });

  it('is a notify service with a watchdog, run by quackd in dialout, writing only its data directory', () => {
    const unit = readFileSync(UNIT, 'utf8');
    const set = (key: string) => unit.match(new RegExp(`^${key}=(.*)$`, 'gm'))?.map((l) => l.slice(key.length + 1));
    assert.deepEqual(set('Type'), ['notify']);
    assert.deepEqual(set('NotifyAccess'), ['all']);
    assert.deepEqual(set('User'), ['quackd']);
    assert.deepEqual(set('SupplementaryGroups'), ['dialout']);
    assert.deepEqual(set('Environment'), ['QUACKD_HOME=/var/lib/quackd', 'MALLOC_ARENA_MAX=2', 'NODE_OPTIONS=--max-semi-space-size=2']);
    assert.deepEqual(set('ProtectSystem'), ['strict']);
    assert.deepEqual(set('ReadWritePaths'), ['/var/lib/quackd']);
    // The serial ports must stay visible: PrivateDevices would hide /dev/ttyACM*.
    assert.equal(set('PrivateDevices'), undefined);
    assert.ok(set('DeviceAllow')?.includes('char-ttyACM rw'));
    // The BNO055's bus and the cameras (a webcam; rpicam-vid's media controllers and frame buffers):
    // the closed policy refuses them to every user without these.
    for (const device of ['char-i2c', 'char-video4linux', 'char-media', 'char-dma_heap']) assert.ok(set('DeviceAllow')?.includes(`${device} rw`), device);
    // quackd's own deadline is 5 s; systemd's must be longer, or it kills a clean shutdown.
    assert.ok(Number.parseInt(set('TimeoutStopSec')?.[0] ?? '0', 10) > 5);
    assert.ok(Number.parseInt(set('WatchdogSec')?.[0] ?? '0', 10) >= 10);
  });
});

describe('systemd/install.sh', () => {
  const root = process.getuid?.() === 0 ? undefined : 'install.sh creates a user and owns files to it: needs root';
  const tools = has('useradd') ? undefined : 'useradd is not installed';
  const skip = skipOutsideCi(root ?? tools);

  it('installs the user, config, data directory and the enabled unit; run again it changes nothing', { skip }, () => {
    const dir = newRoot();
    install(dir);
    const passwd = readFileSync(join(dir, 'etc/passwd'), 'utf8');
    const quackdLine = passwd.split('\n').find((l) => l.startsWith('quackd:'));
    assert.match(quackdLine ?? '', /^quackd:x:\d+:\d+:[^:]*:\/var\/lib\/quackd:\/usr\/sbin\/nologin$/);
    const [, , uid, gid] = (quackdLine ?? '').split(':').map(String);
    assert.match(readFileSync(join(dir, 'etc/group'), 'utf8'), /^dialout:x:20:quackd$/m);

    const data = lstatSync(join(dir, 'var/lib/quackd'));
    assert.equal(data.mode & 0o777, 0o750);
    assert.equal(`${data.uid}:${data.gid}`, `${uid}:${gid}`);
    const config = lstatSync(join(dir, 'etc/quackd/config.yaml'));
    assert.equal(config.mode & 0o777, 0o640);
    assert.equal(`${config.uid}:${config.gid}`, `0:${gid}`);
    assert.equal(readFileSync(join(dir, 'var/lib/quackd/config.yaml'), 'utf8'), readFileSync(join(SYSTEMD, 'config.yaml'), 'utf8'));
    assert.equal(readFileSync(join(dir, 'etc/systemd/system/quackd.service'), 'utf8'), readFileSync(UNIT, 'utf8'));
    if (has('systemctl')) assert.equal(readlinkSync(join(dir, 'etc/systemd/system/multi-user.target.wants/quackd.service')), '/etc/systemd/system/quackd.service');

    appendFileSync(join(dir, 'etc/quackd/config.yaml'), 'robots:\n  sim:\n    body: microduck:sim2d\n');
    const before = snapshot(dir);
    install(dir);
    assert.deepEqual(snapshot(dir), before);
    assert.match(readFileSync(join(dir, 'etc/quackd/config.yaml'), 'utf8'), /body: microduck:sim2d\n$/);
  });

  it("puts the user in i2c and video where the system has those groups (the IMU's bus, the camera), and a user from an earlier install joins them", { skip }, () => {
    const dir = newRoot();
    appendFileSync(join(dir, 'etc/group'), 'video:x:44:pi\ni2c:x:998:pi\n');
    install(dir, '--no-systemctl');
    assert.match(readFileSync(join(dir, 'etc/group'), 'utf8'), /^dialout:x:20:quackd$/m);
    assert.match(readFileSync(join(dir, 'etc/group'), 'utf8'), /^video:x:44:pi,quackd$/m);
    assert.match(readFileSync(join(dir, 'etc/group'), 'utf8'), /^i2c:x:998:pi,quackd$/m);

    // Installed before the system had the group (or before quackd asked for it): the next install adds it.
    const older = newRoot();
    install(older, '--no-systemctl');
    assert.doesNotMatch(readFileSync(join(older, 'etc/group'), 'utf8'), /^i2c:/m);
    appendFileSync(join(older, 'etc/group'), 'i2c:x:998:\n');
    install(older, '--no-systemctl');
    assert.match(readFileSync(join(older, 'etc/group'), 'utf8'), /^i2c:x:998:quackd$/m);
    const before = snapshot(older);
    install(older, '--no-systemctl');
    assert.deepEqual(snapshot(older), before);
  });

  it("installs a config skeleton quackd reads without a complaint, through the data directory's link", { skip }, async () => {
    const dir = newRoot();
    install(dir, '--no-systemctl');
    const r = await quackd(['config', 'check'], { env: { QUACKD_HOME: join(dir, 'var/lib/quackd') } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /var\/lib\/quackd/);
  });

  it('refuses an unknown option with one line and exit 2, touching nothing', () => {
    const r = spawnSync(INSTALL, ['--bogus'], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.equal(r.stderr, 'install.sh: unknown option --bogus (--help lists them)\n');
  });

  // CI installs shellcheck (.ci/run): there a missing one fails, never skips.
  it('passes shellcheck', { skip: has('shellcheck') || process.env['CI'] === 'true' ? undefined : 'shellcheck is not installed' }, () => {
    const r = spawnSync('shellcheck', [INSTALL], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout);
  });
});
