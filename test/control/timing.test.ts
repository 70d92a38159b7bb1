/**
 * The loop in real time: a tick that blocks the worker for three periods makes it skip the slots
 * it missed (counted, and said in the verb's result), never run them back to back; stop() ends a verb on the first tick that
 * starts after it, even while an async skill is computing; health is pushed on the event bus.
 * Counts and orderings only: timing figures are bench/control.ts's business.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { loopSchedulingHere } from '../../src/control/realtime.js';
import type { ControlStats } from '../../src/control/stats.js';
import type { PlantLog } from './kinematic-plant.js';
import { sleep, skill, startRig, type Rig } from './rig.js';

const PERIOD = 20;

function finalStats(rig: Rig): { last?: ControlStats } {
  const seen: { last?: ControlStats } = {};
  rig.events.on('control:stats', (e) => (seen.last = e.stats));
  return seen;
}

/** At most `n` sends within any one period: a burst of replayed ticks would be more. */
function assertNoBurst(log: PlantLog, n = 2): void {
  const t = log.sends.map((s) => s.t);
  for (let i = n; i < t.length; i += 1) assert.ok((t[i] ?? 0) - (t[i - n] ?? 0) >= PERIOD / 2, `sends ${i - n}..${i} within ${((t[i] ?? 0) - (t[i - n] ?? 0)).toFixed(2)} ms`);
}

describe('real-time pacing', () => {
  for (const where of ['plant', 'skill'] as const) {
    it(`skips the slots a blocked tick missed, without a burst (blocked in the ${where})`, async (t) => {
      const rig = await startRig(t, where === 'plant' ? { blockRead: { at: 10, ms: 3 * PERIOD } } : {});
      const stats = finalStats(rig);
      const verb = rig.loop.run(where === 'skill' ? skill({ kind: 'block', velocity: 0.1, at: 5, ms: 3 * PERIOD }) : skill({ kind: 'ramp', velocity: 0.1 }));
      await sleep(600);
      rig.loop.stop();
      const result = await verb;
      const log = await rig.log();
      const s = stats.last;
      assert.ok(s !== undefined && s.state === 'closed', `final stats: ${JSON.stringify(s)}`);
      // Blocked 60 ms from its slot: the next two slots pass unrun, the third runs late by a
      // little. (More only if the machine itself stalls the worker elsewhere.)
      assert.ok(s.missed >= 2 && s.missed <= 5, `missed ${s.missed}`);
      assert.ok(s.overruns >= 1, `overruns ${s.overruns}`);
      // The verb says the slots it had no tick on, and the gap (a fall's result says them: policy-verb.ts missedNote).
      assert.ok(result.missed !== undefined && result.missed.slots >= 2 && result.missed.slots <= s.missed && result.missed.longestGapMs >= 3 * PERIOD, JSON.stringify(result));
      // The blocked tick's targets were stale by the time they were ready: not sent.
      const blocked = where === 'plant' ? 10 : (log.sends.find((x, i) => i > 0 && x.t - (log.sends[i - 1]?.t ?? 0) > 2.5 * PERIOD)?.read ?? 0) - 1;
      assert.ok(blocked > 0, 'no gap of three periods in the sends');
      assert.equal(log.sends.filter((x) => x.read === blocked).length, 0, `read ${blocked} was sent`);
      const before = log.sends.filter((x) => x.read < blocked).at(-1);
      const after = log.sends.find((x) => x.read > blocked);
      assert.ok(before !== undefined && after !== undefined, 'sends on both sides of the block');
      assert.ok(after.t - before.t >= 2.5 * PERIOD, `gap ${after.t - before.t} ms around the block`);
      assertNoBurst(log);
      // Nothing replayed: at most one send a tick, and every tick but the blocked one sent.
      const reads = log.sends.map((x) => x.read);
      assert.equal(new Set(reads).size, reads.length, 'a read was sent twice');
      assert.ok(reads.length >= log.reads - 1 - (s.overruns - 1), `${reads.length} sends for ${log.reads} reads, ${s.overruns} overruns`);
    });
  }

  it('stop() ends a verb on the first tick that starts after it, and nothing moves after', async (t) => {
    const rig = await startRig(t);
    const verb = rig.loop.run(skill({ kind: 'ramp', velocity: 0.5 }));
    await sleep(15 * PERIOD);
    rig.loop.stop();
    const result = await verb;
    assert.ok(result.outcome === 'stopped' && result.requestedTick !== undefined && result.endTick <= result.requestedTick, JSON.stringify(result));
    await sleep(5 * PERIOD);
    const { sends } = await rig.log();
    const last = sends.filter((s) => s.read < result.endTick).at(-1);
    assert.ok(last !== undefined && (last.targets[0] ?? 0) > 0, 'the ramp moved before the stop');
    const afterStop = sends.filter((s) => s.read >= result.endTick);
    assert.ok(afterStop.length >= 4, `${afterStop.length} sends after the stop`);
    for (const s of afterStop) assert.deepEqual(s.targets, last.targets);
  });

  it('stop() does not wait for an async skill that is computing', async (t) => {
    const rig = await startRig(t, {}, { skillTimeoutMs: 10_000 });
    const verb = rig.loop.run(skill({ kind: 'async', delayMs: 5000 }));
    await sleep(5 * PERIOD);
    rig.loop.stop();
    const result = await verb;
    assert.ok(result.outcome === 'stopped' && result.requestedTick !== undefined && result.endTick <= result.requestedTick, JSON.stringify(result));
  });

  it('publishes its health on the event bus, and a last snapshot when it closes', async (t) => {
    const rig = await startRig(t, {}, { robot: 'duck', statsEveryMs: 100 });
    const seen: { robot: string; stats: ControlStats }[] = [];
    rig.events.on('control:stats', (e) => seen.push(e));
    await sleep(450);
    await rig.loop.close();
    assert.ok(seen.length >= 3, `${seen.length} snapshots`);
    const first = seen[0];
    assert.ok(first !== undefined, 'no snapshot');
    assert.equal(first.robot, 'duck');
    assert.equal(first.stats.state, 'holding');
    assert.equal(first.stats.mode, 'realtime');
    assert.equal(first.stats.periodMs, PERIOD);
    assert.match(first.stats.scheduling, /^(SCHED_FIFO 10|normal \(.+\))$/);
    assert.ok(first.stats.ticks >= 2 && first.stats.hz > 10, JSON.stringify(first.stats));
    const last = seen.at(-1)?.stats;
    assert.equal(last?.state, 'closed');
    assert.ok((last?.ticks ?? 0) > first.stats.ticks, 'the last snapshot counts every tick');
    assert.ok((last?.lateMs.max ?? -1) >= 0, 'lateness is measured');
  });

  it('its thread is named quackd-loop and runs under what the loop says: SCHED_FIFO 10 where this process may ask for it', { skip: process.platform !== 'linux' && 'Linux only' }, async (t) => {
    const rig = await startRig(t);
    const loops = readdirSync('/proc/self/task').filter((tid) => readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() === 'quackd-loop');
    assert.equal(loops.length, 1, 'one thread named quackd-loop');
    // stat's fields 40 and 41, rt_priority and policy, counted from the 3rd: the name before may hold spaces.
    const stat = readFileSync(`/proc/self/task/${loops[0] ?? ''}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const [priority, policy] = [fields[40 - 3], fields[41 - 3]];
    const expected = await loopSchedulingHere();
    assert.equal(rig.loop.scheduling, expected);
    assert.deepEqual([policy, priority], expected === 'SCHED_FIFO 10' ? ['1', '10'] : ['0', '0'], `policy and priority for ${expected}`);
  });
});
