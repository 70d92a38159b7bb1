/**
 * A recording on a disk that fills: `quackd run` (the built CLI) with its recordings folder on a
 * 16 KiB tmpfs, which a hello-world's recording (its snapshot's picture) outgrows. The run goes
 * on and succeeds, and the log says once, when the write fails, why the file stops short and
 * where it is: before, nothing said so (or only "the recording lost samples").
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { canMount, quackdMounted } from '../helpers/mount-ns.js';
import { tempDir } from '../helpers/tmp.js';

it('a run whose recording fills its disk succeeds, and the log says ENOSPC and the file once', { skip: canMount ? false : 'needs unshare -m (root) to mount a small tmpfs' }, () => {
  const home = tempDir('quackd-full-disk-');
  const recordings = join(home, 'recordings');
  mkdirSync(recordings);
  const r = quackdMounted('mount -t tmpfs -o size=16k tmpfs "$1"', [recordings], ['run', 'hello-world'], { QUACKD_HOME: home });
  assert.equal(r.code, 0, r.stderr);
  const said = r.stderr.split('\n').filter((l) => l.includes('ENOSPC'));
  assert.equal(said.length, 1, r.stderr);
  assert.match(said[0] ?? '', new RegExp(`the recording stopped at a failed write \\(ENOSPC: no space left on device, write\\); the run goes on: ${recordings}/\\d{8}-\\d{6}-hello-world\\.mcap`));
});
