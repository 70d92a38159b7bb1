/**
 * microduck:jsonrpc driven by the 50 Hz control loop against the host firmware over a pty: a
 * walk streams targets that the firmware applies (its `targets` counter grows about 50 a
 * second) and its simulated joints follow; the firmware's own step limit (max_vel × its tick)
 * seldom has to cut one short (only relay jitter does); a stop ends the walk within a
 * period or so; a link lost mid-walk ends the verb and the run with the usual BodyError.
 * Falls are in plant-fall.test.ts (the host firmware tips its simulated IMU on a signal).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Body } from '../../src/bodies/body.js';
import { BodyError } from '../../src/bodies/body.js';
import { findBody } from '../../src/bodies/index.js';
import { SETTLE_EASE_MS } from '../../src/bodies/microduck/gait-settle.js';
import { Rig, missingTools, sleep } from './rig.js';

async function openBody(rig: Rig): Promise<Body> {
  const entry = findBody('microduck:jsonrpc');
  assert.ok(entry !== undefined);
  return entry.load({ seed: 1, settings: { port: rig.hostPath } });
}

interface Seen {
  readonly targets: number;
  readonly limited: number;
  readonly pos: readonly number[];
  readonly torque: boolean;
}

async function seen(body: Body): Promise<Seen> {
  const d = (await body.observe()).data;
  return { targets: Number(d['targets']), limited: Number(d['limited'] ?? 0), pos: d['pos'] as number[], torque: d['torque'] === true };
}

describe('microduck:jsonrpc walks in the control loop', { skip: missingTools() }, () => {
  let rig: Rig;
  let body: Body;
  before(async () => {
    rig = await Rig.start(['--watchdog-ms', '5000']);
    body = await openBody(rig);
  });
  after(async () => {
    await body?.close();
    await rig?.cleanup();
  });

  it('opening streams nothing: no target reaches the firmware before a verb', async () => {
    await sleep(300);
    const s = await seen(body);
    assert.equal(s.targets, 0);
    assert.equal(s.torque, false);
  });

  it('walk streams targets at 50 Hz, the joints follow, and the step limit holds', async () => {
    const start = await seen(body);
    const t0 = performance.now();
    const r = await body.perform({ verb: 'walk', args: { metres: 0.3 } });
    const seconds = (performance.now() - t0) / 1000;
    assert.equal(r.ok, true, r.summary);
    // The walk slot's manifest (bundled: nominal vx 0.3, made good 0.13 m/s) says the speed, and
    // so the walk's time: 0.3 m at the speed the walk makes good.
    assert.match(r.summary, /^walked 2\.3 s at 0\.30 m\/s \(no odometry on the bridge: about 0\.30 m at the 0\.13 m\/s its manifest says it makes good\), commanded vx 0\.30 m\/s \(the policy's nominal\)$/);
    assert.equal(r.data?.['commanded_vx'], 0.3);
    const end = await seen(body);
    assert.equal(end.torque, true, 'walk switched torque on');
    const applied = end.targets - start.targets;
    // About 50 a second over the walk's 2.3 s, and one a tick while the stand after it eases home
    // (gait-settle.ts); a loaded machine skips a few ticks, never bursts.
    assert.ok(applied >= 80 && applied <= 125 + SETTLE_EASE_MS / 20, `${applied} targets applied in ${seconds.toFixed(2)} s`);
    assert.equal(r.data?.['targets_sent'], applied, 'every target the plant sent was applied');
    // The loop never asks for more than max_vel × 20 ms (test/control covers the safety stage);
    // the firmware measures the step on its own clock, so a target the pty relay delivers a few
    // ms early after a late one is cut short now and then. Rare, never most of them.
    const limited = end.limited - start.limited;
    assert.ok(limited <= applied * 0.2, `the firmware cut ${limited} of ${applied} targets short`);
    const moved = Math.max(...end.pos.map((p, i) => Math.abs(p - (start.pos[i] ?? 0))));
    assert.ok(moved > 0.01, `the joints did not follow (moved at most ${moved.toFixed(4)} rad)`);
  });

  it('holds between verbs without streaming', async () => {
    const a = await seen(body);
    await sleep(300);
    const b = await seen(body);
    assert.equal(b.targets, a.targets);
  });

  it('a stop ends a walk within a period or two', async () => {
    const ctl = new AbortController();
    const walking = body.perform({ verb: 'walk', args: { metres: 2 } }, ctl.signal);
    await sleep(500);
    ctl.abort();
    const stoppedAt = performance.now();
    const r = await walking;
    assert.equal(r.ok, false);
    assert.match(r.summary, /stopped/);
    const before = await seen(body);
    await sleep(200);
    const later = await seen(body);
    assert.equal(later.targets, before.targets, 'targets still streamed after the stop');
    assert.ok(performance.now() - stoppedAt < 2000);
  });

  it('turn ends on its time limit here (the host IMU reads no rotation) and says so', async () => {
    const r = await body.perform({ verb: 'turn', args: { degrees: 20 } });
    assert.equal(r.ok, false);
    assert.match(r.summary, /^turned 0° left \(gyro\) of 20° asked \(time limit\)/);
  });
});

describe('microduck:jsonrpc loses its link mid-walk', { skip: missingTools() }, () => {
  it('the walk ends with the BodyError a lost link gives, and the run with it', async () => {
    const rig = await Rig.start();
    const body = await openBody(rig);
    try {
      const walking = body.perform({ verb: 'walk', args: { metres: 2 } });
      await sleep(400);
      const lostAt = performance.now();
      await rig.unplug();
      await assert.rejects(walking, (err: unknown) => err instanceof BodyError && /serial link to .* lost; the firmware's watchdog cuts torque within \d+ ms, and quackd sends torque off once the link is back/.test(err.message));
      assert.ok(performance.now() - lostAt < 3000, 'the walk did not end soon after the link went');
      await assert.rejects(body.observe(), BodyError);
    } finally {
      await body.close();
      await rig.cleanup();
    }
  });
});
