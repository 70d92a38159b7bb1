/** A data directory on a read-only file system is reported as read-only, in one line (exit 3). */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { MAIN, childEnv } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

// A read-only bind mount needs root and a mount namespace: CI runs as root, so it never skips there.
const canMount = (() => {
  if (process.env['CI'] === 'true') return true;
  try {
    execFileSync('unshare', ['-m', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Runs the built CLI with QUACKD_HOME bind-mounted read-only, in a mount namespace of its own. */
function onReadOnlyHome(args: readonly string[]): { code: number | null; stdout: string; stderr: string } {
  const home = tempDir('quackd-ro-');
  const script = `mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"`;
  const r = spawnSync('unshare', ['-m', 'sh', '-c', script, 'sh', home, process.execPath, MAIN, ...args], { env: childEnv({ QUACKD_HOME: home, NO_COLOR: '1' }), encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('a read-only data directory', { skip: canMount ? false : 'needs unshare -m (root) for a read-only mount' }, () => {
  it('quackd run says the transcripts cannot be written because the file system is read-only', () => {
    const r = onReadOnlyHome(['run', 'hello-world']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /^quackd: cannot write transcripts in .* \(.* is on a read-only file system\)/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });

  it('quackd memory add says the memory directory is on a read-only file system', () => {
    const r = onReadOnlyHome(['memory', 'add', 'the charger is under the desk']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /^quackd: memory store in .*: .* is on a read-only file system \(point --memory-dir or QUACKD_MEMORY_DIR at a writable directory\)$/m);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });
});
