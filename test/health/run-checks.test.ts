/**
 * The health runner: one check that never answers is reported as not answering, and one that
 * throws as a failure in one line, while every other check still reports, in the list's order.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ok, type HealthCheck, type HealthContext } from '../../src/health/check.js';
import { healthy, runChecks } from '../../src/health/run-checks.js';

const ctx: HealthContext = { setup: { ok: false, problem: 'unused' }, dataDir: '/nonexistent', memoryDir: undefined };

describe('runChecks', () => {
  it('a hanging check fails on its deadline and is told to stop; a throwing one fails in one line; the rest report', async () => {
    let aborted = false;
    const checks: HealthCheck[] = [
      { name: 'first', run: () => Promise.resolve(ok('fine')) },
      {
        name: 'hangs',
        run: (_ctx, signal) => {
          signal.addEventListener('abort', () => (aborted = true));
          return new Promise(() => undefined);
        },
      },
      { name: 'throws', run: () => Promise.reject(new Error('socket closed\n    at somewhere')) },
      { name: 'last', run: () => Promise.resolve(ok('also fine')) },
    ];
    const results = await runChecks(checks, ctx, 50);
    assert.deepEqual(results, [
      { check: 'first', status: 'ok', detail: 'fine' },
      { check: 'hangs', status: 'fail', detail: 'no answer within 0.05 s' },
      { check: 'throws', status: 'fail', detail: 'the check failed: socket closed' },
      { check: 'last', status: 'ok', detail: 'also fine' },
    ]);
    assert.equal(aborted, true);
    assert.equal(healthy(results), false);
    assert.equal(healthy([{ check: 'service', status: 'warn', detail: 'not running' }]), true);
  });

  it('the CLI and a running service both reporting the store make one store line, the worse of the two, in the first place', async () => {
    const service = (store: 'ok' | 'fail'): HealthCheck => ({
      name: 'service',
      run: () => Promise.resolve({ ...ok('running · pid 7'), entries: [{ check: 'loop duck', status: 'ok', detail: '50.0 of 50 Hz' }, { check: 'store', status: store, detail: `service: ${store}` }] }),
    });
    const cli: HealthCheck = { name: 'store', run: () => Promise.resolve(ok('1 note · /var/lib/quackd/memory')) };
    const agreeing = await runChecks([cli, service('ok')], ctx);
    assert.deepEqual(
      agreeing.map((r) => `${r.check} ${r.status} ${r.detail}`),
      ['store ok 1 note · /var/lib/quackd/memory', 'service ok running · pid 7', 'loop duck ok 50.0 of 50 Hz'],
    );
    const failing = await runChecks([cli, service('fail')], ctx);
    assert.deepEqual(failing.map((r) => `${r.check} ${r.status}`), ['store fail', 'service ok', 'loop duck ok']);
    assert.equal(healthy(failing), false);
  });
});
