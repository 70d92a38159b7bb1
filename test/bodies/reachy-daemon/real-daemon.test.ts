/**
 * Opt-in: reachy-mini:daemon against Pollen's daemon itself, in its mockup simulation (targets
 * become the present pose at once, no MuJoCo, no media). QUACKD_REACHY_DAEMON names a checkout of
 * pollen-robotics/reachy_mini whose Python has it installed (its .venv, as `uv sync` makes it, or
 * QUACKD_REACHY_PYTHON); the daemon is started on a free loopback port and stopped after. Without
 * it these tests skip and say how to run them.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../../helpers/cli.js';
import { closedPort } from '../../helpers/llm-server.js';
import { tempDir } from '../../helpers/tmp.js';

const CHECKOUT = process.env['QUACKD_REACHY_DAEMON'];
const python = (checkout: string): string => process.env['QUACKD_REACHY_PYTHON'] ?? (existsSync(join(checkout, '.venv/bin/python')) ? join(checkout, '.venv/bin/python') : 'python3');
const rad = (d: number): number => (d * Math.PI) / 180;

async function fullState(url: string): Promise<{ body_yaw: number; head_pose: { yaw: number; pitch: number }; antennas_position: number[]; control_mode: string }> {
  const res = await fetch(`${url}/api/state/full`);
  return (await res.json()) as never;
}

describe('reachy-mini:daemon against the daemon in its mockup simulation (QUACKD_REACHY_DAEMON)', { skip: CHECKOUT === undefined ? 'set QUACKD_REACHY_DAEMON=/path/to/reachy_mini (a checkout with its Python deps installed: uv sync, or pip install -e; QUACKD_REACHY_PYTHON picks the interpreter) to run these against the daemon itself' : false }, () => {
  let daemon: ChildProcess | undefined;
  let url = '';
  let log = '';
  let env: NodeJS.ProcessEnv = {};

  before(async () => {
    const checkout = CHECKOUT ?? '';
    const port = await closedPort();
    url = `http://127.0.0.1:${port}`;
    daemon = spawn(python(checkout), ['-m', 'reachy_mini.daemon.app.main', '--mockup-sim', '--headless', '--no-media', '--no-preload-datasets', '--dataset-update-interval', '0', '--fastapi-host', '127.0.0.1', '--fastapi-port', String(port)], {
      env: { ...process.env, PYTHONPATH: join(checkout, 'src') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    daemon.stdout?.setEncoding('utf8').on('data', (d: string) => (log += d));
    daemon.stderr?.setEncoding('utf8').on('data', (d: string) => (log += d));
    const until = Date.now() + 90_000;
    for (;;) {
      try {
        const st = (await (await fetch(`${url}/api/daemon/status`)).json()) as { state?: string };
        if (st.state === 'running' && (await fetch(`${url}/api/move/running`).then((r) => r.json() as Promise<unknown[]>)).length === 0) break;
      } catch {
        // Not listening yet.
      }
      if (daemon.exitCode !== null || Date.now() > until) throw new Error(`the daemon did not come up:\n${log.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const home = tempDir('quackd-reachy-real-');
    writeFileSync(join(home, 'config.yaml'), `robots:\n  reachy:\n    body: reachy-mini:daemon\n    base_url: ${url}\n`);
    env = { QUACKD_HOME: home };
  });

  after(async () => {
    if (daemon !== undefined && daemon.exitCode === null) {
      const gone = new Promise((r) => daemon?.once('exit', r));
      daemon.kill('SIGINT');
      await Promise.race([gone, new Promise((r) => setTimeout(r, 10_000))]);
      if (daemon.exitCode === null) daemon.kill('SIGKILL');
    }
  });

  it('health reads the daemon: running, simulated (mockup), motors enabled', async () => {
    const h = await runCli(['health', '--robot', 'reachy'], { env });
    assert.match(h.stdout, /daemon .*running, simulated \(mockup\) .*motors enabled/, h.stdout + log.slice(-1000));
  });

  it('turn_body and look reach the pose asked, clamped to the limits', async () => {
    const turned = await runCli(['do', 'turn_body', '170', '--robot', 'reachy', '--yes'], { env });
    assert.equal(turned.code, 0, turned.stdout + turned.stderr);
    assert.match(turned.stdout, /body yaw 170° held at 160°/);
    assert.ok(Math.abs((await fullState(url)).body_yaw - rad(160)) < rad(2));
    const look = await runCli(['do', 'look', 'yaw=150', 'pitch=20', '--robot', 'reachy', '--yes'], { env });
    assert.equal(look.code, 0, look.stdout + look.stderr);
    const s = await fullState(url);
    assert.ok(Math.abs(s.head_pose.yaw - rad(150)) < rad(2), JSON.stringify(s));
    assert.ok(Math.abs(s.head_pose.pitch - rad(20)) < rad(2), JSON.stringify(s));
  });

  it('antennas, quack and torque through the motor modes', async () => {
    const a = await runCli(['do', 'antennas', '30', '-30', '--robot', 'reachy', '--yes'], { env });
    assert.equal(a.code, 0, a.stdout + a.stderr);
    const q = await runCli(['do', 'quack', '--robot', 'reachy', '--yes'], { env });
    assert.equal(q.code, 0, q.stdout + q.stderr);
    const [left = 0, right = 0] = (await fullState(url)).antennas_position;
    assert.ok(Math.abs(left - rad(30)) < rad(2) && Math.abs(right + rad(30)) < rad(2), `antennas back at 30/-30 after the wiggle: ${left}, ${right}`);
    const off = await runCli(['do', 'torque', 'false', '--robot', 'reachy', '--yes'], { env });
    assert.equal(off.code, 0, off.stdout + off.stderr);
    assert.equal((await fullState(url)).control_mode, 'disabled');
    const on = await runCli(['do', 'torque', 'true', '--robot', 'reachy', '--yes'], { env });
    assert.equal(on.code, 0, on.stdout + on.stderr);
    assert.equal((await fullState(url)).control_mode, 'enabled');
  });

  it('the reachy-lookout starter sweeps all round and comes back', async () => {
    const r = await runCli(['run', 'reachy-lookout', '--robot', 'reachy', '--yes', '--no-memory'], { env, timeoutMs: 180_000 });
    assert.match(r.stdout, /look_around +looked all round, head .*, and came back/, r.stdout + r.stderr);
  });
});
