/**
 * A bus cycle nothing answered in time, whose answers then come late (a loaded host's tty path
 * starved): beside six busy processes one walk's cycle was answered 62 ms after the bus gave up,
 * and listened for only 40 ms it was called silent and torque went off mid-walk. Here the late
 * answers come on a real clock that long after, from an event emitter standing for the bus.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { LateCycles, lateGraceMs } from '../../../src/bodies/microduck/servo-bus/late-cycles.js';
import { LateTally } from '../../../src/bodies/microduck/servo-bus/late-tally.js';
import type { ServoBus } from '../../../src/servo-bus/bus.js';
import { ServoTimeoutError } from '../../../src/servo-bus/errors.js';
import { sleep } from '../../helpers/pty-pair.js';

const IDS = [10, 11, 12];

function watch() {
  const bus = new EventEmitter();
  const said = { faults: [] as string[], again: 0, polls: 0 };
  const cycles = new LateCycles({
    bus: bus as unknown as ServoBus,
    poll: () => void said.polls++,
    timeoutMs: 10,
    servos: IDS.length,
    names: (ids) => ids.map((id) => `servo ${id}`).join(', '),
    fault: (text) => said.faults.push(text),
    again: () => said.again++,
    tally: new LateTally(),
  });
  return { bus, said, cycles };
}

type Watched = ReturnType<typeof watch>;

/**
 * Runs `trial` on a fresh watch until it is not too late to say anything: a loaded runner may
 * sleep past the wait itself (`trial` returns false then, before its answers come), and such a
 * trial is run again, up to five times.
 */
async function onTime(trial: (w: Watched, tooLate: () => boolean) => Promise<boolean>): Promise<void> {
  for (let n = 0; ; n++) {
    const w = watch();
    const t0 = performance.now();
    try {
      if (await trial(w, () => performance.now() - t0 >= lateGraceMs(10) - 5 && n < 4)) return;
    } finally {
      w.cycles.close();
    }
  }
}

/** Once every answer is heard the port is not read each ms for the rest of the wait: nothing more can come. */
async function noMorePolls({ said }: Watched): Promise<void> {
  const polls = said.polls;
  await sleep(lateGraceMs(10));
  assert.equal(said.polls, polls);
}

describe('a bus cycle answered late', () => {
  it('answers that come 62 ms after the bus gave up are a late cycle: the joints are read again, no fault', () =>
    onTime(async (w, tooLate) => {
      w.cycles.timedOut(new ServoTimeoutError(IDS, 'sync read', 10), false);
      await sleep(62);
      if (tooLate()) return false;
      for (const id of IDS) w.bus.emit('late', id, 62, false);
      assert.deepEqual({ ...w.said, polls: 0 }, { faults: [], again: 1, polls: 0 });
      assert.equal(w.cycles.listening, false);
      await noMorePolls(w);
      return true;
    }));

  it('a second late cycle in a row is a fault said as late, and once all is heard the port is no longer read each ms', () =>
    onTime(async (w, tooLate) => {
      w.cycles.timedOut(new ServoTimeoutError(IDS, 'sync read', 10), false);
      for (const id of IDS) w.bus.emit('late', id, 5, false);
      assert.equal(w.said.again, 1);
      w.cycles.timedOut(new ServoTimeoutError(IDS, 'sync read', 10), false);
      await sleep(20);
      if (tooLate()) return false;
      for (const id of IDS) w.bus.emit('late', id, 20, false);
      assert.equal(w.said.again, 1);
      assert.equal(w.said.faults.length, 1);
      assert.match(w.said.faults[0] ?? '', /^all 3 servos answered late: \d+ ms after the bus gave up/);
      await noMorePolls(w);
      return true;
    }));

  it('answers that never come are servos that did not answer, said when the wait runs out', async () => {
    const { said, cycles } = watch();
    try {
      const t0 = performance.now();
      cycles.timedOut(new ServoTimeoutError(IDS, 'sync read', 10), false);
      while (said.faults.length === 0) await sleep(5);
      assert.ok(performance.now() - t0 >= lateGraceMs(10) - 1);
      assert.deepEqual(said.faults, ['servo 10, servo 11, servo 12 did not answer']);
      assert.equal(said.again, 0);
    } finally {
      cycles.close();
    }
  });
});
