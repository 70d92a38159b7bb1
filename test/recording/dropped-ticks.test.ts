/**
 * A run's recording counts the ticks it lost, not those its robot's loop lost before the run: a
 * held body's loop outlives the runs it records, and its ring's drop count is the loop's.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TickRecord } from '../../src/control/tick-ring.js';
import { RunRecorder } from '../../src/recording/run-recorder.js';
import { EventBus } from '../../src/runtime/events.js';
import { readIndexed } from '../helpers/mcap.js';
import { tempDir } from '../helpers/tmp.js';

const tick = (index: number): TickRecord => ({
  epochMs: 1_800_000_000_000 + index * 20,
  index,
  lateMs: 0,
  workMs: 0.1,
  gyro: [0, 0, 0],
  gravity: [0, 0, -1],
  accel: [0, 0, 9.81],
  desired: new Float64Array([NaN]),
  applied: new Float64Array([NaN]),
  measured: new Float64Array([0.1]),
});

test("a recording's dropped ticks are its run's: a loss before the run is not counted, one during it is", async () => {
  const events = new EventBus();
  const recorder = await RunRecorder.open(tempDir(), 'held', 'duck', events);
  assert.ok(recorder !== undefined);
  // The loop lost 40 ticks in an earlier run; this run's first batch lost none, its second 3.
  events.emit('control:ticks', { robot: 'duck', joints: ['hip'], ticks: [tick(900), tick(901)], dropped: 40, lost: 0 });
  events.emit('control:ticks', { robot: 'duck', joints: ['hip'], ticks: [tick(905)], dropped: 43, lost: 3 });
  const report = await recorder.close();
  assert.equal(report.droppedTicks, 3);
  const back = await readIndexed(report.path);
  assert.equal(back.metadata.get('quackd.recording')?.get('dropped_ticks'), '3');
  const dropped = ((back.messages.get('/control/tick') ?? []) as { dropped: number }[]).map((m) => m.dropped);
  assert.deepEqual(dropped, [0, 0, 3], "each tick says what the recording had lost by then");
});
