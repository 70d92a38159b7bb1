/**
 * `quackd serve --foxglove`: a client speaking the Foxglove WebSocket protocol (the protocol
 * package's FoxgloveClient over `ws`) subscribes under either name of the protocol and receives
 * the twin's joint states and the run's log lines while a walk runs in the service; off loopback
 * the service refuses to start without a token, and with a token a client without it is
 * turned away; a client that cannot keep up loses messages, counted, and the sender never waits.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { serveDoors } from '../../src/commands/serve.js';
import { LiveServer, MAX_BUFFERED, SUBPROTOCOLS } from '../../src/foxglove/live-server.js';
import type { FrontDoor } from '../../src/service/front-door.js';
import { startService, type Serving } from '../../src/service/lifecycle.js';
import { childEnv, runCli } from '../helpers/cli.js';
import { scripted } from '../helpers/scripted-provider.js';
import { watch } from '../helpers/foxglove-watch.js';
import type { JointState } from '../helpers/mcap.js';
import { waitFor } from '../bridge/rig.js';

const urlOf = (door: FrontDoor | undefined): string => (door?.status?.()[0]?.value ?? '').split(' ')[0] ?? '';

describe('quackd serve --foxglove, a twin walking in the service', () => {
  let home: string;
  let serving: Serving | undefined;
  let door: FrontDoor | undefined;

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'quackd-foxglove-'));
    // The twin at 50 Hz on the wall clock, as a duck walks; the live server as the config asks, on a free port.
    writeFileSync(join(home, 'config.yaml'), 'robots:\n  twin: { body: microduck:mujoco, pace: realtime }\nmqtt: false\nfoxglove: { listen: "127.0.0.1:0" }\n');
    const env = { QUACKD_HOME: home };
    const pilot = scripted([[{ name: 'walk', args: { metres: 1 } }], [{ name: 'declare_success', args: { reason: 'walked' } }]]);
    serving = await startService({
      env,
      pilot: () => Promise.resolve(pilot),
      doors: (service, config) => {
        const doors = serveDoors(env)(service, config);
        door = doors.find((d) => d.name === 'foxglove');
        return doors;
      },
    });
  });
  after(async () => {
    await serving?.stop('the test');
    rmSync(home, { recursive: true, force: true });
  });

  it('clients under both protocol names receive the joint states and the log of a walk as it runs', async () => {
    const url = urlOf(door);
    assert.match(url, /^ws:\/\/127\.0\.0\.1:\d+$/);
    const watchers = await Promise.all(SUBPROTOCOLS.map((p) => watch(url, p)));
    try {
      assert.deepEqual(
        watchers.map((w) => w.ws.protocol),
        [...SUBPROTOCOLS],
        'each spoken to in the name it asked for',
      );
      const [first] = watchers;
      assert.deepEqual([...first!.channels.keys()].sort(), ['/control/tick', '/imu', '/joints/applied', '/joints/measured', '/joints/target', '/log', '/room', '/tf'], "a recording's channels");
      assert.equal(first!.channels.get('/joints/measured')?.schemaName, 'sensor_msgs/msg/JointState');
      assert.deepEqual([first!.channels.get('/joints/measured')?.encoding, first!.channels.get('/joints/measured')?.schemaEncoding], ['cdr', 'ros2msg'], 'sent as it is advertised');
      for (const w of watchers) for (const topic of ['/joints/measured', '/log']) w.subscribe(topic);
      const run = await serving!.service.run('twin', { duck: 'walker', goal: 'walk one metre', gates: 'yes' });
      // While it runs: joint states stream in, each naming the twin's joints.
      for (const w of watchers) await waitFor(`${w.ws.protocol}: a second of joint states`, () => (w.got.get('/joints/measured') ?? []).length >= 50, 30_000);
      const report = await run.done;
      assert.equal(report.outcome.status, 'success', report.outcome.reason);
      for (const w of watchers) {
        const joints = w.got.get('/joints/measured') as JointState[];
        assert.ok(joints.every((m) => m.name.length === joints[0]!.name.length && m.position.length === m.name.length && m.position.every(Number.isFinite)));
        assert.ok(joints[0]!.name.length >= 10, `${joints[0]!.name.length} joints`);
        await waitFor(`${w.ws.protocol}: the run's last log line`, () => (w.got.get('/log') as { name: string }[] | undefined)?.some((l) => l.name === 'end') === true, 5000);
        const names = (w.got.get('/log') as { name: string }[]).map((l) => l.name);
        assert.ok(names.includes('verb_result'), names.join(' '));
      }
      assert.equal(watchers.reduce((n, w) => n + (w.got.get('/imu') ?? []).length, 0), 0, 'nothing was asked of /imu, so nothing of it was sent');
      assert.match(door?.status?.()[0]?.value ?? '', / · 2 clients · 0 dropped$/);
    } finally {
      for (const w of watchers) w.close();
    }
  });
});

describe('quackd serve --foxglove, two robots in one view', () => {
  it("each robot's pose and room are in frames of its own, so Foxglove's 3D panel keeps two trees", async (t) => {
    const home = mkdtempSync(join(tmpdir(), 'quackd-foxglove-'));
    writeFileSync(join(home, 'config.yaml'), 'robots:\n  den1: { body: microduck:sim2d }\n  den2: { body: microduck:sim2d }\nmqtt: false\nfoxglove: { listen: "127.0.0.1:0" }\n');
    const env = { QUACKD_HOME: home };
    let door: FrontDoor | undefined;
    const serving = await startService({
      env,
      pilot: () => Promise.resolve(scripted([[{ name: 'walk', args: { metres: 0.3 } }], [{ name: 'declare_success', args: { reason: 'walked' } }]])),
      doors: (service, config) => {
        const doors = serveDoors(env)(service, config);
        door = doors.find((d) => d.name === 'foxglove');
        return doors;
      },
    });
    t.after(async () => {
      await serving.stop('the test');
      rmSync(home, { recursive: true, force: true });
    });
    const w = await watch(urlOf(door), SUBPROTOCOLS[0], '/den2/tf');
    t.after(() => w.close());
    for (const topic of ['/den1/tf', '/den2/tf', '/den1/room', '/den2/room']) w.subscribe(topic);
    const runs = await Promise.all(['den1', 'den2'].map((robot) => serving.service.run(robot, { duck: 'walker', goal: 'walk a little', gates: 'yes' })));
    for (const run of runs) assert.equal((await run.done).outcome.status, 'success');
    type Transforms = { transforms: { parent_frame_id: string; child_frame_id: string }[] };
    for (const robot of ['den1', 'den2']) {
      await waitFor(`${robot}'s pose`, () => (w.got.get(`/${robot}/tf`) ?? []).length > 0 && (w.got.get(`/${robot}/room`) ?? []).length > 0, 10_000);
      const links = new Set((w.got.get(`/${robot}/tf`) as Transforms[]).flatMap((m) => m.transforms.map((f) => `${f.parent_frame_id} → ${f.child_frame_id}`)));
      assert.deepEqual([...links], [`${robot}/room → ${robot}/trunk`]);
      const rooms = new Set((w.got.get(`/${robot}/room`) as { entities: { frame_id: string }[] }[]).flatMap((m) => m.entities.map((e) => e.frame_id)));
      assert.deepEqual([...rooms], [`${robot}/room`]);
    }
  });
});

describe('who may watch', () => {
  it('off loopback, the service refuses to start without a token, in one line', async () => {
    const home = mkdtempSync(join(tmpdir(), 'quackd-foxglove-'));
    try {
      writeFileSync(join(home, 'config.yaml'), 'robots:\n  den: { body: microduck:sim2d }\nmqtt: false\nfoxglove: { listen: "0.0.0.0:0" }\n');
      const env = { QUACKD_HOME: home };
      await assert.rejects(startService({ env, doors: serveDoors(env) }), /^UsageError: serve: --foxglove 0\.0\.0\.0 is reachable from other machines, and nobody may watch the robots from there without a token$/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('quackd serve --foxglove 0.0.0.0 without a token exits 2 with the one line, having stopped what it started', async () => {
    const home = mkdtempSync(join(tmpdir(), 'quackd-foxglove-'));
    try {
      writeFileSync(join(home, 'config.yaml'), 'robots:\n  den: { body: microduck:sim2d }\nmqtt: false\n');
      const r = await runCli(['serve', '--foxglove', '0.0.0.0:0'], { env: childEnv({ QUACKD_HOME: home }), timeoutMs: 60_000 });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /^quackd: serve: --foxglove 0\.0\.0\.0 is reachable from other machines, and nobody may watch the robots from there without a token \(give --foxglove-token-file FILE/m);
      assert.match(r.stderr, /quackd serve stopped/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('quackd serve --foxglove on a port another program holds exits 3 with one line, having stopped what it started', async (t) => {
    const home = mkdtempSync(join(tmpdir(), 'quackd-foxglove-'));
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    t.after(() => {
      holder.close();
      rmSync(home, { recursive: true, force: true });
    });
    writeFileSync(join(home, 'config.yaml'), 'robots:\n  den: { body: microduck:sim2d }\nmqtt: false\n');
    const taken = `127.0.0.1:${(holder.address() as AddressInfo).port}`;
    const r = await runCli(['serve', '--foxglove', taken], { env: childEnv({ QUACKD_HOME: home }), timeoutMs: 60_000 });
    assert.equal(r.code, 3, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('quackd:'));
    assert.deepEqual(lines, [`quackd: serve: Foxglove cannot listen on ${taken} (EADDRINUSE) (another program has that port: pick another with --foxglove ADDR:PORT (or foxglove.listen in the config))`]);
    assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
    assert.match(r.stderr, /quackd serve stopped/);
  });

  it('with a token, a client without it is answered 401; with it (?token=, as Foxglove’s URL carries it) it connects', async (t) => {
    const token = 'a-token-long-enough-0123456789';
    const server = new LiveServer({ host: '127.0.0.1', port: 0, token, robots: ['den'] });
    await server.start();
    t.after(() => server.stop());
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(server.url, [SUBPROTOCOLS[0]]);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => undefined);
    });
    assert.equal(refused, 401);
    const wrong = new WebSocket(`${server.url}/?token=not-the-token-at-all-0000`, [SUBPROTOCOLS[0]]);
    assert.equal(await new Promise<number>((resolve) => wrong.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)).on('error', () => undefined)), 401);
    // A request line no URL parser takes is turned away the same, and the server goes on serving.
    const raw = connect(Number(server.url.split(':').at(-1)), '127.0.0.1');
    raw.end('GET http://[ HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n');
    const answer = await new Promise<string>((resolve) => raw.once('data', (d) => resolve(String(d))));
    assert.match(answer, /^HTTP\/1\.1 401 /);
    const w = await watch(`${server.url}/?token=${token}`, SUBPROTOCOLS[1]);
    w.close();
  });
});

describe('a slow client', () => {
  it('loses messages past its bound, counted; the sender never waits for it', async (t) => {
    const server = new LiveServer({ host: '127.0.0.1', port: 0, robots: ['den'] });
    await server.start();
    t.after(() => server.stop());
    const w = await watch(server.url, SUBPROTOCOLS[0]);
    t.after(() => w.close());
    w.subscribe('/log');
    await waitFor('the subscription', () => server.dropped === 0 && server.clients === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // 40 MB at once, far past what the socket and MAX_BUFFERED hold: the client cannot have read it.
    const text = 'x'.repeat(20_000);
    const sent = 2000;
    const t0 = performance.now();
    for (let i = 0; i < sent; i++) server.publish('den', { channel: 'log', epochMs: Date.now(), message: { timestamp: { sec: 0, nsec: 0 }, level: 2, message: text, name: 'flood', file: '', line: 0 } });
    const ms = performance.now() - t0;
    assert.ok(server.dropped > 0, 'nothing dropped');
    await waitFor('the client to read what was kept', () => (w.got.get('/log') ?? []).length + server.dropped >= sent, 20_000);
    assert.equal((w.got.get('/log') ?? []).length + server.dropped, sent, 'every message either reached the client or was counted');
    assert.ok((w.got.get('/log') ?? []).length * 20_000 < 40e6 - MAX_BUFFERED, 'the client got less than was sent');
    t.diagnostic(`${sent} messages of 20 kB published in ${ms.toFixed(0)} ms; ${server.dropped} dropped, ${(w.got.get('/log') ?? []).length} delivered`);
  });
});
