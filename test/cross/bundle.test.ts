/**
 * The bundled code on this machine, through the bundle's launcher: what esbuild rewrote (the
 * files found beside their modules, CommonJS packages loaded by import(), zod's messages) works
 * as dist does. The emulated proofs (arm64/armv7.test.ts) need qemu; this runs everywhere.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { outputOf } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { hostBundle } from './host-bundle.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

describe('the bundled code, run here', () => {
  const dir = tempDir('quackd-bundle-');
  before(() => hostBundle(dir));

  const quackd = (home: string, ...args: string[]) =>
    outputOf(spawn(join(dir, 'bin/quackd'), args, { env: { PATH: process.env['PATH'], QUACKD_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] }))

  it('prints the version from the bundle\'s package.json', async () => {
    const r = await quackd(tempDir(), '--version');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${VERSION}\n`);
  });

  it('the socket clients answer from the launcher alone, as the full CLI does', async () => {
    const home = tempDir();
    const none = await quackd(home, 'status');
    assert.equal(none.code, 3);
    assert.equal(none.stderr, `quackd: no quackd serve is running (no answer at ${join(home, 'quackd.sock')}) (start it with 'quackd serve' or 'systemctl start quackd')\n`);
    const usage = await quackd(home, 'stop', 'den', 'hall');
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /^quackd: stop: one robot, or none for all of them\n$/);
    const help = await quackd(home, 'confirm', '--help');
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage: quackd confirm /);
  });

  it('a service served from the bundle answers status, stop and confirm through the launcher', async () => {
    const home = tempDir();
    writeFileSync(join(home, 'config.yaml'), 'robots:\n  den: { body: microduck:sim2d }\n');
    const service = spawn(join(dir, 'bin/quackd'), ['serve'], { env: { PATH: process.env['PATH'], QUACKD_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    const served = outputOf(service);
    try {
      let stderr = '';
      service.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      while (!stderr.includes('quackd serve ready')) {
        assert.equal(service.exitCode, null, `quackd serve exited: ${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const status = await quackd(home, 'status', '--json');
      assert.equal(status.code, 0, status.stderr);
      const reply = JSON.parse(status.stdout) as { service: { version: string }; robots: { robot: string; activity: string }[] };
      assert.equal(reply.service.version, VERSION);
      assert.deepEqual(reply.robots.map((r) => [r.robot, r.activity]), [['den', 'idle']]);
      const text = await quackd(home, 'status');
      assert.match(text.stdout, /^den +idle +microduck:sim2d$/m);
      const stop = await quackd(home, 'stop', 'den');
      assert.equal(stop.code, 0, stop.stderr);
      assert.equal(stop.stdout, 'stopped den\n');
      // No run, so no gate: exit 1, as the full CLI says it.
      const confirm = await quackd(home, 'confirm', 'den', 'yes');
      assert.equal(confirm.code, 1, confirm.stderr);
      assert.match(confirm.stderr, /^quackd: .*den.*\n$/);
      // A run through the service: its episode is written by the service's memory writer worker.
      const run = await quackd(home, 'run', 'hello-world', '--robot', 'den');
      assert.equal(run.code, 0, run.stderr);
      const show = await quackd(home, 'memory', 'show', '--robot', 'den');
      assert.match(show.stdout, /^microduck:sim2d: 0 notes, 1 earlier run/);
    } finally {
      service.kill('SIGTERM');
      await served;
    }
  });

  it('built with --system-node (no node/ inside), the launcher runs the machine\'s node', async () => {
    const bare = tempDir('quackd-bundle-bare-');
    for (const part of ['lib', 'node_modules', 'package.json']) symlinkSync(join(dir, part), join(bare, part));
    mkdirSync(join(bare, 'bin'));
    copyFileSync(join(dir, 'bin/quackd'), join(bare, 'bin/quackd'));
    const r = spawnSync(join(bare, 'bin/quackd'), ['--version'], { env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, QUACKD_HOME: tempDir() }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `${VERSION}\n`);
  });

  it('reads a config file (yaml, loaded by import()) and names a bad line in one line', async () => {
    const home = tempDir();
    writeFileSync(join(home, 'config.yaml'), 'robots:\n  kitchen: { body: microduck:sim3d }\n');
    const r = await quackd(home, 'config');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^quackd: .*config\.yaml:2: robots\.kitchen\.body: unknown body "microduck:sim3d"/);
    assert.doesNotMatch(r.stderr, /internal error/);
  });

  it('a value of the wrong type gets zod\'s message, in English', async () => {
    const home = tempDir();
    writeFileSync(join(home, 'config.yaml'), 'service:\n  gate_timeout_s: soon\n');
    const r = await quackd(home, 'config');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^quackd: .*config\.yaml:2: service\.gate_timeout_s: .*number/);
  });

  it('runs a starter (found beside its module) and shows the episode it wrote', async () => {
    const home = tempDir();
    const run = await quackd(home, 'run', 'hello-world');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^OK success — I quacked hello\./m);
    const show = await quackd(home, 'memory', 'show');
    assert.match(show.stdout, /^microduck:sim2d: 0 notes, 1 earlier run/);
  });

  it('loads every bundled policy on the native runtime, in the control worker\'s MuJoCo duck too', async () => {
    const home = tempDir();
    const health = await quackd(home, 'health', '--robot', 'microduck:mujoco');
    assert.match(health.stdout, /^policy runtime +ok +onnxruntime-node \S+ \(native\)$/m);
    assert.match(health.stdout, /^policies +ok +all 5 slots load \(5 bundled\)$/m);
    const duck = join(home, 'hello-mujoco.duck');
    writeFileSync(duck, readFileSync(join(REPO, 'src/ducks/starters/hello-world.duck'), 'utf8').replace('robot: microduck:sim2d', 'robot: microduck:mujoco'));
    const run = await quackd(home, 'run', duck);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^hello-mujoco on microduck:mujoco/m);
  });
});
