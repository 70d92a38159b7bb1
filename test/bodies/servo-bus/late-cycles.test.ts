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

describe('a bus cycle answered late', () => {
  it('answers that come 62 ms after the bus gave up are a late cycle: the joints are read again, no fault', async () => {
    // A loaded runner may sleep past the wait itself; such a trial says nothing and is run again.
    for (let trial = 0; ; trial++) {
      const { bus, said, cycles } = watch();
      try {
        const t0 = performance.now();
        cycles.timedOut(new ServoTimeoutError(IDS, 'sync read', 10), false);
        await sleep(62);
        if (performance.now() - t0 >= lateGraceMs(10) - 5 && trial < 4) continue;
        for (const id of IDS) bus.emit('late', id, 62, false);
        assert.deepEqual({ ...said, polls: 0 }, { faults: [], again: 1, polls: 0 });
        assert.equal(cycles.listening, false);
        // Every answer heard: the port is no longer read each ms for the rest of the wait, beside the next cycles.
        const polls = said.polls;
        await sleep(lateGraceMs(10));
        assert.equal(said.polls, polls);
        return;
      } finally {
        cycles.close();
      }
    }
  });

  it('a second late cycle in a row is a fault said as late, and once all is heard the port is no longer read each ms', async () => {
    for (let trial = 0; ; trial++) {
      const { bus, said, cycles } = watch();
      try {
        const t0 = performance.now();
        cycles.timedOut(new ServoTimeoutError(IDS, 'sync read', 10), false);
        for (const id of IDS) bus.emit('late', id, 5, false);
        assert.equal(said.again, 1);
        cycles.timedOut(new ServoTimeoutError(IDS, 'sync read', 10), false);
        await sleep(20);
        if (performance.now() - t0 >= lateGraceMs(10) - 5 && trial < 4) continue;
        for (const id of IDS) bus.emit('late', id, 20, false);
        assert.equal(said.again, 1);
        assert.equal(said.faults.length, 1);
        assert.match(said.faults[0] ?? '', /^all 3 servos answered late: \d+ ms after the bus gave up/);
        // Nothing more can come: the rest of the 150 ms passes without reading the port each ms.
        const polls = said.polls;
        await sleep(lateGraceMs(10));
        assert.equal(said.polls, polls);
        return;
      } finally {
        cycles.close();
      }
    }
  });

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
