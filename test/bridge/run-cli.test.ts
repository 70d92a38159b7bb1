/**
 * `quackd run` on a real serial body: the host firmware on a pty stands in for the duck, and the
 * whole path runs as a user runs it (CLI → executor → microduck:jsonrpc → bridge → firmware).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { quackd } from '../helpers/quackd.js';
import { writeDuck } from '../helpers/ducks.js';
import { tempDir } from '../helpers/tmp.js';
import { Rig, missingTools } from './rig.js';

describe('quackd run --robot microduck:jsonrpc', { skip: missingTools() }, () => {
  let rig: Rig;
  before(async () => {
    rig = await Rig.start();
  });
  after(async () => {
    await rig?.cleanup();
  });

  it('flies hello-world over the serial link', async () => {
    const env = { QUACKD_HOME: tempDir() };
    const r = await quackd(['run', 'hello-world', '--robot', 'microduck:jsonrpc', '--port', rig.hostPath], { env });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^hello-world on microduck:jsonrpc/m);
    assert.match(r.stdout, /^ {2}1 {2}quack +/m);
    // The transcript says which firmware, on which link, in which boot the run flew.
    const show = await quackd(['transcript', 'show', 'last'], { env });
    assert.match(show.stdout, new RegExp(`body {3}quackd-fw \\S+ on host via ${rig.hostPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} · boot \\d+$`, 'm'));
  });

  it('refuses a duck that needs search_scan (no camera on the bridge) before anything opens', async () => {
    const dir = tempDir();
    const path = writeDuck(dir, 'looky', 'robot: microduck:jsonrpc\nverbs:\n  - quack\n  - search_scan');
    const r = await quackd(['run', path, '--port', rig.hostPath], { env: { QUACKD_HOME: tempDir() } });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trim(), `quackd: ${path}:5: verbs: search_scan needs a camera: setting (the bridge carries no camera) on microduck:jsonrpc`);
    const fk = await quackd(['run', 'find-and-kick', '--robot', 'microduck:jsonrpc', '--port', rig.hostPath], { env: { QUACKD_HOME: tempDir() } });
    assert.equal(fk.code, 2);
    assert.match(fk.stderr, /^quackd: starter:find-and-kick:\d+: verbs: search_scan needs a camera: setting \(the bridge carries no camera\)/);
  });

  it('snapshot through the duck\'s camera: one that is not there fails the verb in one line, the run goes on', async () => {
    const home = tempDir();
    writeFileSync(join(home, 'config.yaml'), `robots:\n  duck:\n    body: microduck:jsonrpc\n    port: ${rig.hostPath}\n    camera: { device: /dev/video-not-here }\n`);
    const path = writeDuck(home, 'looky', 'robot: microduck:jsonrpc\nverbs: [snapshot, quack]', '# Looky\n\n1. snapshot\n2. quack\n');
    const r = await quackd(['run', path, '--robot', 'duck', '--provider', 'script', '--no-memory'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const line = /^camera \/dev\/video-not-here: (ffmpeg exited with code \d+: .*No such file or directory|ffmpeg is not installed \(apt install ffmpeg\))$/;
    const step = r.stdout.split('\n').find((l) => l.trimStart().startsWith('snapshot'));
    assert.match(step?.replace(/^ +snapshot +/, '') ?? '', line);
    assert.match(r.stdout, /failure — step 1 \(snapshot\) failed: camera \/dev\/video-not-here: /);
  });

  it('asks for --port before opening anything (exit 2)', async () => {
    const r = await quackd(['run', 'hello-world', '--robot', 'microduck:jsonrpc'], { env: { QUACKD_HOME: tempDir() } });
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim(), 'quackd: run: microduck:jsonrpc needs --port (e.g. --port /dev/serial/by-id/usb-…-if00)');
  });

  it('exits 3 with one line when the port does not exist', async () => {
    const r = await quackd(['run', 'hello-world', '--robot', 'microduck:jsonrpc', '--port', '/dev/serial/by-id/nope'], { env: { QUACKD_HOME: tempDir() } });
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.match(r.stdout, /nope/);
  });
});
