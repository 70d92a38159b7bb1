/**
 * The embedded broker's pacer: how long it holds a client's command before reading that client
 * on. Within the rate nothing waits; a flood is held a period of the rate per command, up to a
 * cap, so one socket read of a flood is read on within the cap, and a quiet client's next burst
 * passes again.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CommandPacer } from '../../src/mqtt/rate-limit.js';

test('a burst within the limit passes unheld; past it each command is held a period later, up to the cap', () => {
  const pacer = new CommandPacer({ perSecond: 20, burst: 40 }, 1000);
  for (let i = 0; i < 40; i++) assert.equal(pacer.holdMs('ha', 0), 0, `command ${i + 1} of the burst`);
  const held = Array.from({ length: 30 }, () => pacer.holdMs('ha', 0));
  assert.deepEqual(held.slice(0, 3), [50, 100, 150]);
  assert.equal(Math.max(...held), 1000, 'never held past the cap');
  assert.equal(held.at(-1), 1000);
  // Another client is not held for the flooder's sake.
  assert.equal(pacer.holdMs('node-red', 0), 0);
  // Quiet for two seconds: its bucket has refilled, the next burst passes again.
  assert.equal(pacer.holdMs('ha', 3000), 0);
});
