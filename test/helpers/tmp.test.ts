/**
 * The temporary directory a test's service lives in is removed after the service stops. A clean-clone
 * CI run failed serve-share's clean-up with ENOTEMPTY: the home's removal, registered first, ran
 * while the service it held was still writing its memory store. Here a writer that never pauses
 * makes that race certain: without the order, the home is removed before the writer stops (and its
 * files outlive the clean-up, or the removal fails and the hooks after it never run).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { stopBeforeRemoving, tempDir } from './tmp.js';

const WRITER = `
const { mkdirSync, writeFileSync } = require('node:fs');
const dir = process.argv[1];
let i = 0;
setInterval(() => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(dir + '/' + (i++ % 64), 'x');
  if (i === 1) process.stdout.write('writing\\n');
}, 1);
`;

describe('tempDir', () => {
  let home = '';
  let homeAtStop: boolean | undefined;
  it('is removed once a process still writing in it is stopped, not while it writes', async () => {
    home = tempDir('quackd-tmp-writer-');
    const writer = spawn(process.execPath, ['-e', WRITER, join(home, 'memory')], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<void>((resolve) => writer.once('exit', () => resolve()));
    writeFileSync(join(home, 'config.yaml'), 'robots: {}\n');
    const stop = async () => {
      homeAtStop ??= existsSync(join(home, 'config.yaml'));
      if (writer.exitCode === null && writer.signalCode === null) writer.kill('SIGKILL');
      await exited;
    };
    // As serve() does: its own after() comes after the directory's, so only this orders them.
    after(stop);
    stopBeforeRemoving(join(home, 'memory'), stop);
    await new Promise((resolve) => writer.stdout.once('data', resolve));
  });

  it('left nothing behind', () => {
    assert.equal(homeAtStop, true, 'the writer was stopped after its home was removed');
    assert.equal(existsSync(home), false, `${home} is still there`);
  });
});
