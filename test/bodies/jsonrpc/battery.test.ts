/** The Microduck's charge read off its 2S pack's voltage: what the battery sensor and status show. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { batteryPercent } from '../../../src/bodies/microduck/jsonrpc/battery.js';

it('reads 0 % at the firmware\'s cut-off (6.4 V) and below, 100 % full (8.4 V) and above, rising between', () => {
  assert.deepEqual([5, 6.4, 8.4, 9].map(batteryPercent), [0, 0, 100, 100]);
  // The host firmware's 8.1 V: 4.05 V a cell, on the curve between 80 and 90 %.
  assert.equal(batteryPercent(8.1), 83);
  assert.equal(batteryPercent(7.68), 50);
  let last = -1;
  for (let v = 6.3; v <= 8.5; v += 0.01) {
    const pct = batteryPercent(v);
    assert.ok(Number.isInteger(pct) && pct >= last, `${v.toFixed(2)} V: ${pct} % after ${last} %`);
    last = pct;
  }
});
