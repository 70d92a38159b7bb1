/**
 * A stop at any moment of a motion verb on microduck:jsonrpc, against the host firmware over a
 * pty: as the walk is asked for (before its first question to the firmware), while torque
 * switches on, while the loop is asked to run it, on its first ticks. Each ends the walk within
 * a period or so, `stopped`, with the time it really ran and the targets it really sent, never
 * `ok`. The sweep stops after k turns of the event loop for k from 0 up, so every await of the
 * verb's start is hit whatever the machine's load (the race: a stop between torque on and
 * the first tick was lost, and the walk ran its whole 10 s and read `ok: true` with 0 targets).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Body, VerbResult } from '../../src/bodies/body.js';
import { findBody } from '../../src/bodies/index.js';
import { Rig, missingTools } from './rig.js';

/** A 3 m walk (10 s planned) stopped once `ready` resolves; how long the stop took to end it. */
async function stoppedWalk(body: Body, ready: () => Promise<void>): Promise<{ r: VerbResult; ms: number }> {
  const ctl = new AbortController();
  const walking = body.perform({ verb: 'walk', args: { metres: 3 } }, ctl.signal);
  await ready();
  const at = performance.now();
  ctl.abort();
  const r = await walking;
  return { r, ms: performance.now() - at };
}

/** After `k` turns of the event loop. */
const turns = (k: number) => async (): Promise<void> => {
  for (let i = 0; i < k; i++) await new Promise((resolve) => setImmediate(resolve));
};

// Bounded: without the fix a lost stop walks for 10 s each time.
describe('a stop at any moment of a walk on microduck:jsonrpc', { skip: missingTools(), timeout: 120_000 }, () => {
  let rig: Rig;
  let body: Body;
  before(async () => {
    rig = await Rig.start(['--watchdog-ms', '5000']);
    const entry = findBody('microduck:jsonrpc');
    assert.ok(entry !== undefined);
    body = await entry.load({ seed: 1, settings: { port: rig.hostPath } });
  });
  after(async () => {
    await body?.close();
    await rig?.cleanup();
  });

  it('a stop as the walk is asked for: stopped, 0.0 s, no target sent, torque left off', async () => {
    const ctl = new AbortController();
    const walking = body.perform({ verb: 'walk', args: { metres: 3 } }, ctl.signal);
    // In the same turn, before any of the walk's awaits has come back: torque is not switched on.
    ctl.abort();
    const r = await walking;
    assert.equal(r.ok, false, r.summary);
    assert.match(r.summary, /^walked 0\.0 s at [\d.]+ m\/s: stopped$/);
    assert.equal(r.data?.['targets_sent'], 0);
    assert.equal(r.data?.['stopped'], true);
    assert.equal((await body.observe()).data['torque'], false, 'a walk stopped before it began switched torque on');
  });

  it('a stop at each step of the start, k event-loop turns in (k = 0…60): every walk ends stopped within a second, saying what it did', async () => {
    const seen: string[] = [];
    for (const k of [0, 1, 2, 3, 4, 6, 8, 11, 15, 20, 25, 30, 40, 50, 60]) {
      const { r, ms } = await stoppedWalk(body, turns(k));
      seen.push(`k ${k}: ${r.summary} (${JSON.stringify(r.data)})`);
      assert.equal(r.ok, false, seen.join('\n'));
      assert.match(r.summary, /: stopped$/, seen.join('\n'));
      assert.ok(ms < 1000, `k ${k}: the walk ended ${ms.toFixed(0)} ms after the stop\n${seen.join('\n')}`);
      const ran = Number(r.data?.['ran_s']);
      assert.ok(ran < 1, `k ${k}: says it ran ${ran} s\n${seen.join('\n')}`);
      assert.equal(typeof r.data?.['targets_sent'], 'number');
    }
  });

  it('a walk stopped after a while says the time it ran, not the time it planned', async () => {
    const { r } = await stoppedWalk(body, () => new Promise((resolve) => setTimeout(resolve, 1500)));
    const ran = Number(r.data?.['ran_s']);
    assert.ok(ran >= 0.8 && ran <= 1.6, `${r.summary}: ran_s ${ran}`);
    assert.match(r.summary, /^walked \d\.\d s at [\d.]+ m\/s: stopped$/);
    assert.ok(Number(r.data?.['targets_sent']) > 20, JSON.stringify(r.data));
  });
});
