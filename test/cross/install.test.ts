/**
 * Upgrade and rollback of a bundle, as on a Pi: each version untarred beside the others in
 * /opt/quackd, its systemd/install.sh makes it `current` and keeps the one before as `previous`,
 * and /usr/local/bin/quackd runs current's bin/quackd. Into a temp root (QUACKD_ROOT), with the
 * code bundled for real (cross/bundle.ts) and this machine's node standing in for the bundle's.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { skipOutsideCi } from '../helpers/skip.js';
import { tempDir } from '../helpers/tmp.js';
import { hostBundle } from './host-bundle.js';
import { fakeRoot } from '../helpers/root.js';

/** A root with the accounts a Debian install starts with, as test/systemd/install.test.ts makes it. */
const newRoot = (): string => fakeRoot('quackd-cross-root-');

/** A bundle folder as build.sh lays it out, at `version`; node/bin/node is this machine's. */
function layOut(template: string, at: string, version: string): void {
  cpSync(template, at, { recursive: true, verbatimSymlinks: true });
  const pkgFile = join(at, 'package.json');
  writeFileSync(pkgFile, JSON.stringify({ ...(JSON.parse(readFileSync(pkgFile, 'utf8')) as object), version }));
}

function install(root: string, script: string) {
  const r = spawnSync(script, ['--no-systemctl'], { env: { PATH: process.env['PATH'], QUACKD_ROOT: root }, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** /usr/local/bin/quackd run as the robot's kernel runs it (its #! line), with the temp root's paths for the robot's. */
function quackdOnPath(root: string): string {
  const asHere = join(root, 'quackd-on-path');
  writeFileSync(asHere, readFileSync(join(root, 'usr/local/bin/quackd'), 'utf8').replaceAll('/opt/quackd/', `${root}/opt/quackd/`), { mode: 0o755 });
  return spawnSync(asHere, ['--version'], { encoding: 'utf8' }).stdout.trim();
}

const quackdIn = (dir: string) => spawnSync(join(dir, 'bin/quackd'), ['--version'], { encoding: 'utf8' }).stdout.trim();

describe('a bundle: install, upgrade, rollback', { skip: skipOutsideCi(process.getuid?.() === 0 ? undefined : 'install.sh needs root (useradd into the temp root)') }, () => {
  const template = tempDir('quackd-cross-bundle-');
  before(() => hostBundle(template));

  it('makes the new folder current, keeps the one before as previous, and swaps them back', () => {
    const root = newRoot();
    const opt = join(root, 'opt/quackd');
    const one = join(opt, 'quackd-1.0.0-linux-arm64');
    const two = join(opt, 'quackd-1.1.0-linux-arm64');
    layOut(template, one, '1.0.0');
    layOut(template, two, '1.1.0');
    const link = (name: string) => (existsSync(join(opt, name)) ? readlinkSync(join(opt, name)) : undefined);

    const first = install(root, join(one, 'systemd/install.sh'));
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^quackd quackd-1\.0\.0-linux-arm64 is current in .*\/opt\/quackd$/m);
    assert.equal(link('current'), 'quackd-1.0.0-linux-arm64');
    assert.equal(link('previous'), undefined);
    // The command on PATH, as the unit's `/usr/bin/env quackd serve` finds it: node itself, no shell.
    const onPath = readFileSync(join(root, 'usr/local/bin/quackd'), 'utf8');
    assert.equal(onPath.split('\n')[0], '#!/opt/quackd/current/node/bin/node');
    assert.match(onPath, /^require\("\/opt\/quackd\/current\/lib\/quackd\.cjs"\);$/m);
    assert.equal(quackdOnPath(root), '1.0.0');
    assert.ok(existsSync(join(root, 'etc/systemd/system/quackd.service')));
    assert.equal(quackdIn(join(opt, 'current')), '1.0.0');

    const upgrade = install(root, join(two, 'systemd/install.sh'));
    assert.equal(upgrade.code, 0, upgrade.stderr);
    assert.match(upgrade.stdout, /is current in .* \(previous: quackd-1\.0\.0-linux-arm64\)$/m);
    assert.equal(link('current'), 'quackd-1.1.0-linux-arm64');
    assert.equal(link('previous'), 'quackd-1.0.0-linux-arm64');
    assert.equal(quackdIn(join(opt, 'current')), '1.1.0');
    assert.equal(quackdOnPath(root), '1.1.0');

    // A rollback is the previous folder's own install.sh, run through the `previous` link.
    const rollback = install(root, join(opt, 'previous/systemd/install.sh'));
    assert.equal(rollback.code, 0, rollback.stderr);
    assert.equal(link('current'), 'quackd-1.0.0-linux-arm64');
    assert.equal(link('previous'), 'quackd-1.1.0-linux-arm64');
    assert.equal(quackdIn(join(opt, 'current')), '1.0.0');
    assert.equal(quackdOnPath(root), '1.0.0');

    // Again: nothing moves, so previous still names the other version.
    const again = install(root, join(opt, 'current/systemd/install.sh'));
    assert.equal(again.code, 0, again.stderr);
    assert.equal(link('current'), 'quackd-1.0.0-linux-arm64');
    assert.equal(link('previous'), 'quackd-1.1.0-linux-arm64');
  });

  it('a bundle on the robot\'s own node (--system-node) gets `env node`; a folder with a space, a link to bin/quackd', () => {
    const root = newRoot();
    const bare = join(root, 'opt/quackd/quackd-1.0.0-linux-armv7');
    layOut(template, bare, '1.0.0');
    rmSync(join(bare, 'node'), { recursive: true });
    const r = install(root, join(bare, 'systemd/install.sh'));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(join(root, 'usr/local/bin/quackd'), 'utf8').split('\n')[0], '#!/usr/bin/env node');
    assert.equal(quackdOnPath(root), '1.0.0');

    const spaced = newRoot();
    const folder = join(spaced, 'opt/my robot/quackd-1.0.0-linux-arm64');
    layOut(template, folder, '1.0.0');
    const s = install(spaced, join(folder, 'systemd/install.sh'));
    assert.equal(s.code, 0, s.stderr);
    assert.equal(readlinkSync(join(spaced, 'usr/local/bin/quackd')), '/opt/my robot/current/bin/quackd');
  });

  it('refuses a bundle outside the root it installs into, in one line', () => {
    const root = newRoot();
    const elsewhere = join(tempDir('quackd-cross-elsewhere-'), 'quackd-1.0.0-linux-arm64');
    layOut(template, elsewhere, '1.0.0');
    const r = install(root, join(elsewhere, 'systemd/install.sh'));
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^install\.sh: the bundle .* is outside .*: untar it into .*\/opt\/quackd\n$/);
    assert.equal(existsSync(join(root, 'etc/systemd/system/quackd.service')), false, 'nothing was installed');
  });
});
