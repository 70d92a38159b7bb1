/**
 * The main thread's side of the tick ring: ticks are read out of the worker's ring (every 100 ms)
 * only for someone listening to `control:ticks` (a run's recording, the Foxglove door). A loop
 * nobody listens to has its ticks passed over, so a listener that comes later gets the ticks from
 * when it came, none from before and none dropped. Real worker, kinematic plant, real time.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RuntimeEvents } from '../../src/runtime/events.js';
import { sleep, startRig } from './rig.js';

test('ticks reach only a listener, from when it began to listen, none dropped', async (t) => {
  const rig = await startRig(t);
  let ticks = 0;
  rig.events.on('control:stats', (e) => (ticks = e.stats.ticks));
  // Longer than the ring holds (256 ticks at 50 Hz: 5.1 s) would be a test of minutes; a second
  // unheard is enough to tell passed over from kept: those ticks must never arrive.
  await sleep(1200);
  const heardFrom = ticks;
  assert.ok(heardFrom >= 30, `${heardFrom} ticks ran unheard`);
  const batches: RuntimeEvents['control:ticks'][] = [];
  rig.events.on('control:ticks', (b) => batches.push(b));
  await sleep(600);
  const indices = batches.flatMap((b) => b.ticks.map((tick) => tick.index));
  assert.ok(indices.length >= 15, `${indices.length} ticks heard in 600 ms`);
  // The first batch may hold the ticks of the 100 ms before the listener came, none older.
  assert.ok((indices[0] ?? 0) >= heardFrom - 10, `first tick heard ${indices[0]}, the loop was at ${heardFrom} when listening began`);
  assert.deepEqual(
    indices,
    indices.map((_, i) => (indices[0] ?? 0) + i),
    'every tick from then, in order',
  );
  assert.equal(batches.at(-1)?.dropped, 0);
  assert.ok(batches.every((b) => b.lost === 0), 'no batch lost a tick');
});
