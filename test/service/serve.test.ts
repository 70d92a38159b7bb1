/**
 * `quackd serve` as systemd runs it: the built bin in a child process. Its first log line names
 * the build, version, pid and config file; SIGTERM during a run stops the run (its transcript
 * ends interrupted), removes the socket, closes the store (it opens again afterwards) and exits 0
 * (the 5 s hard deadline would exit 1). A bad config file is one line with its place, exit 2.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openMemoryStore } from '../../src/memory/store.js';
import { openService } from '../../src/service/socket/client.js';
import type { Reply } from '../../src/service/socket/protocol.js';
import { readTranscript } from '../../src/transcript/reader.js';
import { VERSION } from '../../src/version.js';
import { runCli } from '../helpers/cli.js';
import { writeDuck } from '../helpers/ducks.js';
import { serve } from '../helpers/serve.js';

describe('quackd serve, spawned', () => {
  let home: string;
  let config: string;

  before(() => {
    home = mkdtempSync(join(tmpdir(), 'quackd-serve-'));
    mkdirSync(join(home, 'ducks'));
    writeDuck(join(home, 'ducks'), 'careful-hello', 'robot: microduck:sim2d\nverbs: [quack]\nconfirm: [quack]\nbudgets: { steps: 3, llm_calls: 5, seconds: 30 }');
    // Named with --config: not the home's own config.yaml.
    config = join(home, 'fleet.yaml');
    writeFileSync(config, 'robots:\n  den: { body: microduck:sim2d }\n');
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  it('logs who it is first, and stops a run, the socket and the store on SIGTERM, exit 0', async () => {
    let stderr = '';
    let child: ChildProcess | undefined;
    let sentAt = 0;
    const served = runCli(['serve', '--config', config], {
      env: { QUACKD_HOME: home },
      timeoutMs: 30_000,
      onSpawn: (c) => {
        child = c;
        c.stderr?.on('data', (d: string) => (stderr += d));
      },
    });
    const socket = join(home, 'quackd.sock');
    while (!stderr.includes('quackd serve ready')) {
      if (child?.exitCode !== null && child?.exitCode !== undefined) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(existsSync(socket), stderr);

    const first = JSON.parse(stderr.split('\n')[0] ?? '') as Record<string, unknown>;
    assert.equal(first['msg'], `quackd serve starting (pid ${child?.pid})`);
    assert.equal(first['version'], VERSION);
    assert.equal(first['pid'], child?.pid);
    assert.equal(first['config'], config);
    assert.equal(typeof first['build'], 'string');

    // A run waiting at its gate when the signal comes.
    const replies: Reply[] = [];
    let gate: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => (gate = resolve));
    const connection = await openService({ QUACKD_HOME: home }, { op: 'run', robot: 'den', duck: 'careful-hello', gates: 'ask' }, (r) => {
      replies.push(r);
      if (r.type === 'gate') gate();
    });
    assert.ok(connection !== undefined);
    await asked;
    sentAt = Date.now();
    child?.kill('SIGTERM');
    const r = await served;
    const tookMs = Date.now() - sentAt;
    await connection.closed;
    assert.equal(r.code, 0, r.stderr);
    // Not a timing target: the deadline is the service's own (it exits 1 past 5 s); this says how close it came.
    console.log(`# SIGTERM to exit: ${tookMs} ms`);

    const end = replies.find((x) => x.type === 'end');
    assert.ok(end?.type === 'end');
    assert.equal(end.report.outcome.status, 'interrupted');
    assert.equal(end.report.outcome.reason, 'stopped by SIGTERM');
    const last = readTranscript(end.report.transcriptPath).lines.at(-1);
    assert.ok(last?.type === 'end' && last.outcome === 'interrupted', 'the transcript was ended');
    assert.ok(!existsSync(socket), 'the socket was removed');
    assert.match(r.stderr, /quackd serve stopped/);
    // The store was closed: it opens again, for writing.
    const store = await openMemoryStore(join(home, 'memory'));
    await store.close();
  });

  it('a SIGTERM while it is still starting stops it cleanly once started: exit 0, socket removed, store closed', async () => {
    const own = mkdtempSync(join(tmpdir(), 'quackd-serve-early-'));
    after(() => rmSync(own, { recursive: true, force: true }));
    // systemd stopping a unit that is still opening its bodies: the signal comes with the first line.
    const r = await runCli(['serve', '--config', config], {
      env: { QUACKD_HOME: own },
      timeoutMs: 30_000,
      onSpawn: (c) => {
        let said = '';
        c.stderr?.on('data', (d: string) => {
          said += d;
          if (said.includes('quackd serve starting') && c.signalCode === null && !said.includes('SIGNAL SENT')) {
            said += 'SIGNAL SENT';
            c.kill('SIGTERM');
          }
        });
      },
    });
    assert.equal(r.signal, null, `killed by ${r.signal ?? ''} before it had started: no stop ran\n${r.stderr}`);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /quackd serve stopped/);
    assert.ok(!existsSync(join(own, 'quackd.sock')), 'the socket was removed');
    const store = await openMemoryStore(join(own, 'memory'));
    await store.close();
  });

  it("runs with the pilot of the config as it was read at start: a file edited since is the next start's", async () => {
    const own = mkdtempSync(join(tmpdir(), 'quackd-serve-pilot-'));
    after(() => rmSync(own, { recursive: true, force: true }));
    writeFileSync(join(own, 'config.yaml'), 'pilot: { provider: fake }\nrobots:\n  den: { body: microduck:sim2d }\n');
    const s = await serve(own, readFileSync(join(own, 'config.yaml'), 'utf8'));
    try {
      // Mid-edit: another pilot, with no model yet.
      writeFileSync(join(own, 'config.yaml'), 'pilot: { provider: openai }\nrobots:\n  den: { body: microduck:sim2d }\n');
      const r = await runCli(['run', 'hello-world', '--robot', 'den'], { env: { QUACKD_HOME: own } });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /pilot fake/);
    } finally {
      s.child.kill('SIGTERM');
      await s.exited;
    }
  });

  it('config check reads the file serve --config reads', async () => {
    const r = await runCli(['config', 'check', '--config', config, '--json'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { configFile: { path: string }; robots: { name: string }[] };
    assert.equal(report.configFile.path, config);
    assert.deepEqual(report.robots.map((x) => x.name), ['den']);
  });

  it('a bad config file: one line with its place, exit 2, nothing left behind', async () => {
    const bad = join(home, 'bad.yaml');
    writeFileSync(bad, 'robots:\n  den: { body: microduck:sim3d }\n');
    const r = await runCli(['serve', '--config', bad], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 2);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('quackd: '));
    assert.equal(errors.length, 1, r.stderr);
    assert.match(errors[0] ?? '', new RegExp(`^quackd: ${bad}:2: robots\\.den\\.body: unknown body "microduck:sim3d"`));
    assert.ok(!existsSync(join(home, 'quackd.sock')));
  });

  it('a --config that names no file: one line, exit 2, nothing served (a typo is not an empty fleet)', async () => {
    const typo = join(home, 'flet.yaml');
    for (const argv of [['serve', '--config', typo], ['config', 'check', '--config', typo]]) {
      const r = await runCli(argv, { env: { QUACKD_HOME: home } });
      assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
      const errors = r.stderr.split('\n').filter((l) => l.startsWith('quackd: '));
      assert.deepEqual(errors, [`quackd: ${typo}: no such file (named by --config or QUACKD_CONFIG) (check the path, or leave --config out for the default config file)`], r.stderr);
      assert.ok(!existsSync(join(home, 'quackd.sock')));
    }
  });
});
