/**
 * `quackd do` and `--provider script` on a real serial body: the host firmware on a pty stands in
 * for the duck (with --yaw-rate, so its gyro reads a turn while its joints step), and the whole
 * path runs as a user runs it (CLI → script pilot → executor → microduck:jsonrpc → bridge →
 * firmware). A verb that moves waits for a yes here, as `--goal`'s do; patrol plays end to end.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';
import { Rig, missingTools } from './rig.js';

describe('quackd do and the script pilot on microduck:jsonrpc', { skip: missingTools() }, () => {
  let rig: Rig;
  before(async () => {
    // A lenient watchdog, as the other motion tests on the rig have: on a machine loaded past its
    // cores a 200 ms gap in the heartbeat is the scheduler's, and this is a test of the pilot's path.
    // A slow yaw (30°/s) so a tick the scheduler delays overshoots the turn by degrees, not tens:
    // the host turns its trunk while any joint moves, so the stand after the turn, easing home
    // (gait-settle.ts), reads as a turn too (at 45°/s the patrol's turn read 197-198°).
    rig = await Rig.start(['--yaw-rate', '30', '--watchdog-ms', '5000']);
  });
  after(async () => {
    await rig?.cleanup();
  });
  const on = (): string[] => ['--robot', 'microduck:jsonrpc', '--port', rig.hostPath];

  it('quacks with no yes asked (a quack moves nothing)', async () => {
    const r = await quackd(['do', 'quack', ...on()], { env: { QUACKD_HOME: tempDir() } });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^do on microduck:jsonrpc · pilot script/m);
    assert.match(r.stdout, /^ {2}1 {2}quack +quacked$/m);
  });

  it('a verb that moves is denied without a terminal or --yes, and nothing is sent', async () => {
    const r = await quackd(['do', 'walk', '0.3', ...on()], { env: { QUACKD_HOME: tempDir() } });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /walk 0\.30 +\(denied: needs confirmation; no terminal to ask, --yes to allow\)/);
    assert.match(r.stdout, /failure — step 1 \(walk 0\.3\) was denied: .* · 0 steps/);
  });

  it('walks with --yes, sending the policy\'s targets to the firmware', async () => {
    const r = await quackd(['do', 'walk', '0.3', '--yes', '--json', ...on()], { env: { QUACKD_HOME: tempDir() }, timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const outcome = JSON.parse(r.stdout) as { outcome: string; steps: number; reason: string };
    assert.deepEqual([outcome.outcome, outcome.steps, outcome.reason], ['success', 1, 'did walk 0.3 (unverified: nothing measured it)']);
  });

  it('reads on and off as yes and no: torque off, confirmed by the firmware', async () => {
    const r = await quackd(['do', 'torque', 'off', '--yes', ...on()], { env: { QUACKD_HOME: tempDir() } });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^ {2}1 {2}torque off +torque off: limp$/m);
  });

  it('plays patrol with --provider script: walk, turn round on the gyro, walk back', async () => {
    const r = await quackd(['run', 'patrol', '--provider', 'script', '--no-memory', ...on()], { env: { QUACKD_HOME: tempDir() }, timeoutMs: 90_000 });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^ {2}1 {2}walk 0\.50 +walked 3\.[7-9] s at 0\.30 m\/s \(no odometry on the bridge: about 0\.[45]\d m/m);
    assert.match(r.stdout, /^ {2}2 {2}turn 180 +turned 1[89]\d° left \(gyro\), commanded vyaw [\d.]+ rad\/s \(the policy.s nominal\)$/m);
    assert.match(r.stdout, /^ {2}3 {2}walk 0\.50 +walked/m);
    assert.match(r.stdout, /success — played the 3 lines of the script \(tilt_deg 0 ≤ 30\) · 3 steps, 4 calls/);
  });
});
