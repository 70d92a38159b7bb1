/**
 * A Reachy Mini driven through its daemon, under `quackd serve` (the built bin in a child, its
 * embedded broker) while nothing runs: with the daemon answering the robot is idle and online; a
 * daemon that hangs past timeout_s, then one that is gone (connection refused), shows it offline
 * in `quackd status`, `quackd health` and on its MQTT availability topic, each saying why in one
 * line; a daemon back at its URL brings it online again. A daemon that answers with its backend
 * stopped shows it offline too, saying so and how to start it, and online once the backend runs.
 * Nothing moves and no run starts: the daemon is only asked its status.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readCredentials } from '../../../src/mqtt/credentials.js';
import { runCli } from '../../helpers/cli.js';
import { freePort } from '../../helpers/mosquitto.js';
import { watch, type Received } from '../../helpers/mqtt-watch.js';
import { startFakeDaemon } from '../../helpers/reachy-daemon.js';
import { serve } from '../../helpers/serve.js';
import { tempDir } from '../../helpers/tmp.js';

interface Shown {
  readonly activity: string;
  readonly link?: string;
  readonly away?: string;
}

async function until<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last = await get();
  while (!ok(last)) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 250));
    last = await get();
  }
  return last;
}

/** `quackd serve` holding one Reachy Mini at `url` (MQTT on its embedded broker): its status as shown, and a viewer on its availability. */
async function serveReachy(url: string, prefix: string) {
  const home = tempDir(prefix);
  const mqttPort = await freePort();
  const env = { QUACKD_HOME: home };
  const serving = await serve(home, `robots:\n  reachy:\n    body: reachy-mini:daemon\n    base_url: ${url}\n    timeout_s: 1\nmqtt:\n  port: ${mqttPort}\n  users:\n    viewer: { may: [] }\n`);
  const reachy = async (): Promise<Shown> => {
    const r = await runCli(['status', '--json'], { env });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const found = (JSON.parse(r.stdout) as { robots: (Shown & { robot: string })[] }).robots.find((x) => x.robot === 'reachy');
    assert.ok(found !== undefined, r.stdout);
    return found;
  };
  const w = await watch(`mqtt://127.0.0.1:${mqttPort}`, ['quackd/reachy/availability'], { username: 'viewer', password: readCredentials(home)?.get('viewer') ?? '' });
  return { home, env, serving, reachy, w };
}

describe('reachy-mini:daemon under quackd serve while its daemon comes and goes', { timeout: 180_000 }, () => {
  it('is offline with why while the daemon hangs or is gone, online again once it answers, and nothing moves', async () => {
    let daemon = await startFakeDaemon();
    const port = Number(new URL(daemon.url).port);
    try {
      const { home, env, serving, reachy, w } = await serveReachy(daemon.url, 'quackd-reachy-offline-');
      const availability = (): string | undefined => w.messages.filter((m: Received) => m.topic === 'quackd/reachy/availability').at(-1)?.payload;

      assert.equal((await reachy()).activity, 'idle');
      await w.waitFor((m) => m.topic === 'quackd/reachy/availability' && m.payload === 'online', 'online at the start');

      // Silent past timeout_s (a frozen daemon, a network gone quiet).
      daemon.hang('GET /api/daemon/status');
      const hung = await until('offline while it hangs', reachy, (s) => s.activity === 'offline');
      assert.equal(hung.link, 'lost');
      assert.equal(hung.away, `the Reachy Mini daemon at ${daemon.url} did not answer GET /api/daemon/status within 1 s`);
      await w.waitFor((m) => m.topic === 'quackd/reachy/availability' && m.payload === 'offline', 'offline on MQTT');

      // Gone: nothing listens at its URL.
      const asked = daemon.requests.map((q) => `${q.method} ${q.path}`);
      await daemon.close();
      const gone = await until('connection refused', reachy, (s) => s.away?.includes('ECONNREFUSED') === true);
      assert.equal(gone.activity, 'offline');
      assert.equal(gone.away, `the Reachy Mini daemon at ${daemon.url} is not answering (ECONNREFUSED): is reachy-mini-daemon running there?`);
      const shown = await runCli(['status'], { env });
      assert.match(shown.stdout, /^reachy +offline +reachy-mini:daemon$/m);
      assert.match(shown.stdout, /^ +body +link lost$/m);
      assert.match(shown.stdout, new RegExp(`^ +away +the Reachy Mini daemon at ${daemon.url.replace(/\./g, '\\.')} is not answering \\(ECONNREFUSED\\): is reachy-mini-daemon running there\\?$`, 'm'));
      const health = await runCli(['health', '--robot', 'reachy'], { env });
      assert.match(health.stdout, /link reachy +warn +lost: the Reachy Mini daemon at .* is not answering \(ECONNREFUSED\)/);
      assert.equal(availability(), 'offline');

      // Back where it was.
      daemon = await startFakeDaemon({ port });
      const back = await until('online again', reachy, (s) => s.activity === 'idle');
      assert.deepEqual(back, { robot: 'reachy', key: 'reachy-mini:daemon', activity: 'idle', link: 'ok' });
      await w.waitFor((m) => m.topic === 'quackd/reachy/availability' && m.payload === 'online' && w.messages.filter((x) => x.payload === 'offline').length > 0, 'online again on MQTT');
      assert.equal(availability(), 'online');

      // Only ever asked its status: no move, no motor mode, no run.
      const all = [...asked, ...daemon.requests.map((q) => `${q.method} ${q.path}`)];
      assert.deepEqual([...new Set(all)], ['GET /api/daemon/status'], all.join(', '));
      const transcripts = join(home, 'transcripts');
      assert.deepEqual(existsSync(transcripts) ? readdirSync(transcripts) : [], [], 'no run');
      await w.close();
      serving.child.kill('SIGTERM');
      assert.equal((await serving.exited).code, 0, serving.stderr());
      assert.match(serving.stderr(), /link lost; quackd asks again every few seconds/);
    } finally {
      await daemon.close();
    }
  });

  it('is offline, saying so and how to start it, while the daemon answers with its backend stopped; online once it runs, and nothing moves', async () => {
    const daemon = await startFakeDaemon();
    try {
      const { env, serving, reachy, w } = await serveReachy(daemon.url, 'quackd-reachy-backend-');
      await w.waitFor((m) => m.topic === 'quackd/reachy/availability' && m.payload === 'online', 'online at the start');
      assert.equal((await reachy()).activity, 'idle');

      // The daemon stays up (its dashboard's "stop", POST /api/daemon/stop): its status says `stopped`, no backend.
      daemon.state.backendReady = false;
      const why = `the Reachy Mini daemon at ${daemon.url} answers, but its backend is stopped: start it from its dashboard, or POST /api/daemon/start?wake_up=false`;
      const stopped = await until('offline while its backend is stopped', reachy, (s) => s.activity === 'offline', 20_000);
      assert.deepEqual(stopped, { robot: 'reachy', key: 'reachy-mini:daemon', activity: 'offline', link: 'lost', away: why });
      const shown = await runCli(['status'], { env });
      assert.match(shown.stdout, /^reachy +offline +reachy-mini:daemon$/m);
      assert.ok(shown.stdout.split('\n').some((l) => /^ +away +/.test(l) && l.trim().endsWith(why)), shown.stdout);
      await w.waitFor((m) => m.topic === 'quackd/reachy/availability' && m.payload === 'offline', 'offline on MQTT');
      const health = await runCli(['health', '--robot', 'reachy'], { env });
      assert.ok(health.stdout.split('\n').some((l) => /^link reachy +warn +lost: /.test(l) && l.endsWith(why)), health.stdout);
      // A run asked for meanwhile is refused with the same words, before anything moves.
      const run = await runCli(['do', 'look', '30', '--robot', 'reachy', '--yes'], { env });
      assert.notEqual(run.code, 0, run.stdout + run.stderr);
      assert.ok((run.stdout + run.stderr).includes(why), run.stdout + run.stderr);

      // Started again.
      daemon.state.backendReady = true;
      const back = await until('online again', reachy, (s) => s.activity === 'idle', 20_000);
      assert.deepEqual({ activity: back.activity, link: back.link, away: back.away }, { activity: 'idle', link: 'ok', away: undefined });
      await w.waitFor((m) => m.topic === 'quackd/reachy/availability' && m.payload === 'online' && w.messages.some((x) => x.payload === 'offline'), 'online again on MQTT');

      const asked = new Set(daemon.requests.map((q) => `${q.method} ${q.path}`));
      assert.deepEqual([...asked], ['GET /api/daemon/status'], [...asked].join(', '));
      await w.close();
      serving.child.kill('SIGTERM');
      assert.equal((await serving.exited).code, 0, serving.stderr());
    } finally {
      await daemon.close();
    }
  });
});
