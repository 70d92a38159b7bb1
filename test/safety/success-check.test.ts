import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verifySuccess } from '../../src/safety/success-check.js';

describe('verifySuccess', () => {
  const checks = [
    { metric: 'battery_v', op: '>=', value: 7.5 },
    { metric: 'quacks', op: '>=', value: 1 },
  ] as const;

  it('passes every check that holds and says each', () => {
    assert.deepEqual(verifySuccess(checks, { battery_v: 7.9, quacks: 1 }), { ok: true, detail: 'battery_v 7.9 ≥ 7.5, quacks 1 ≥ 1' });
  });

  it('fails on the first check that does not hold', () => {
    assert.deepEqual(verifySuccess(checks, { battery_v: 7.2, quacks: 1 }), { ok: false, detail: 'battery_v is 7.2, needs ≥ 7.5' });
  });

  it('says a metric the body has no reading of is unverified', () => {
    assert.deepEqual(verifySuccess(checks, { quacks: 1 }), { ok: true, detail: 'battery_v: no reading (unverified), quacks 1 ≥ 1' });
  });
});
