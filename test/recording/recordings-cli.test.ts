/**
 * `quackd recordings` and a run's own retention, as the built CLI runs them, on a recordings folder
 * that holds more than quackd's recordings: a directory named like one and the user's own
 * `mcap recover` copy are neither listed nor deleted (a run's retention included), while a
 * recording whose transcript is gone still goes. A recording the disk will not delete (a mount
 * point, a read-only folder) is kept and said in one line, exit 3, the others pruned; a
 * `recordings` that is not a folder is one line, exit 3.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { READ_ONLY, canMount, quackdMounted } from '../helpers/mount-ns.js';
import { tempDir } from '../helpers/tmp.js';

const STRAY_DIR = '20261201-110000-stray.mcap';
const USERS = 'my-best-walk-fixed.mcap';

/** A home whose recordings folder holds `orphans` (run recordings without a transcript), a stray directory and the user's file. */
function home(orphans: readonly string[]): { home: string; recordings: string } {
  const home = tempDir('quackd-recordings-');
  const recordings = join(home, 'recordings');
  mkdirSync(join(recordings, STRAY_DIR), { recursive: true });
  writeFileSync(join(recordings, USERS), Buffer.alloc(100));
  for (const id of orphans) writeFileSync(join(recordings, `${id}.mcap`), Buffer.alloc(100));
  return { home, recordings };
}

const oneLine = (stderr: string): void => assert.equal(stderr.trim().split('\n').length, 1, stderr);

describe('quackd recordings, a folder with more than recordings in it', () => {
  it('prune and list leave a directory and the user’s own file alone; a recording without its transcript goes', async () => {
    const h = home(['20261201-120000-walk']);
    const env = { QUACKD_HOME: h.home };
    const list = await runCli(['recordings', 'list', '--json'], { env });
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual((JSON.parse(list.stdout) as { id: string }[]).map((r) => r.id), ['20261201-120000-walk']);
    const prune = await runCli(['recordings', 'prune'], { env });
    assert.equal(prune.code, 0, prune.stderr);
    assert.match(prune.stdout, /deleted 1 recording/);
    assert.deepEqual(readdirSync(h.recordings).sort(), [STRAY_DIR, USERS]);
  });

  it('a file whose name would drive the terminal is neither shown nor deleted', async () => {
    const h = home(['20261201-120000-walk']);
    const odd = '20261201-120100-walk\n\x1b[2J\x1b]0;owned\x07.mcap';
    writeFileSync(join(h.recordings, odd), Buffer.alloc(100));
    const env = { QUACKD_HOME: h.home };
    for (const args of [['recordings', 'list'], ['recordings', 'prune', '--dry-run'], ['recordings', 'prune']]) {
      const r = await runCli(args, { env });
      assert.equal(r.code, 0, r.stderr);
      assert.ok(!(r.stdout + r.stderr).includes('\x1b') && !(r.stdout + r.stderr).includes('\x07'), `${args.join(' ')}: ${JSON.stringify(r.stdout)}`);
      assert.doesNotMatch(r.stdout, /owned/, args.join(' '));
    }
    assert.ok(existsSync(join(h.recordings, odd)));
  });

  it('a run’s own retention deletes neither, and does not fail', async () => {
    // One at a time: on its own, each was what a run's retention broke on.
    for (const stray of [USERS, STRAY_DIR]) {
      const h = home([]);
      const other = join(h.recordings, stray === USERS ? STRAY_DIR : USERS);
      rmSync(other, { recursive: true });
      const run = await runCli(['run', 'hello-world'], { env: { QUACKD_HOME: h.home, QUACKD_LOG_LEVEL: 'info' } });
      assert.equal(run.code, 0, run.stderr);
      assert.doesNotMatch(run.stderr, /retention failed/);
      assert.ok(existsSync(join(h.recordings, stray)), `${stray} was deleted`);
    }
  });

  it('a recordings that is not a folder is one line, exit 3', async () => {
    const env = { QUACKD_HOME: tempDir('quackd-recordings-') };
    writeFileSync(join(env.QUACKD_HOME, 'recordings'), 'not a folder');
    for (const sub of ['list', 'prune']) {
      const r = await runCli(['recordings', sub], { env });
      assert.equal(r.code, 3, r.stderr);
      assert.match(r.stderr, /^quackd: cannot read the recordings in .*recordings: not a directory$/m);
      oneLine(r.stderr);
    }
  });

  describe('a disk that will not delete', { skip: canMount ? false : 'needs unshare -m (root) for a mount' }, () => {
    it('a recording that is a mount point is kept and said in one line, exit 3; the others are deleted', () => {
      const h = home(['20261201-120000-walk', '20261201-120100-walk']);
      const busy = join(h.recordings, '20261201-120000-walk.mcap');
      const r = quackdMounted('mount --bind "$1" "$1"', [busy], ['recordings', 'prune'], { QUACKD_HOME: h.home });
      assert.equal(r.code, 3, r.stderr);
      assert.match(r.stdout, /deleted 1 recording/);
      assert.match(r.stderr, /^quackd: recordings prune: could not delete .*20261201-120000-walk\.mcap \(in use\)$/m);
      oneLine(r.stderr);
      assert.deepEqual(readdirSync(h.recordings).sort(), [STRAY_DIR, '20261201-120000-walk.mcap', USERS]);
    });

    it('a read-only recordings folder: kept, one line, exit 3', () => {
      const h = home(['20261201-120000-walk', '20261201-120100-walk']);
      const r = quackdMounted(READ_ONLY, [h.recordings], ['recordings', 'prune'], { QUACKD_HOME: h.home });
      assert.equal(r.code, 3, r.stderr);
      assert.match(r.stderr, /^quackd: recordings prune: could not delete .*\.mcap \(read-only file system\) and 1 more$/m);
      oneLine(r.stderr);
      assert.equal(readdirSync(h.recordings).length, 4);
    });
  });
});
