/** A data directory on a read-only file system is reported as read-only, in one line (exit 3). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CliResult } from '../helpers/cli.js';
import { READ_ONLY, canMount, quackdMounted } from '../helpers/mount-ns.js';
import { tempDir } from '../helpers/tmp.js';

/** Runs the built CLI with QUACKD_HOME bind-mounted read-only, in a mount namespace of its own. */
function onReadOnlyHome(args: readonly string[]): CliResult {
  const home = tempDir('quackd-ro-');
  return quackdMounted(READ_ONLY, [home], args, { QUACKD_HOME: home });
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
