/**
 * The contract every Body keeps, as one suite to run against each backend (MQTT.js's
 * abstract_store pattern). A backend's test file calls bodyContract with a factory.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Body, Intent } from '../../src/bodies/body.js';

/**
 * An intent the types forbid (an unknown verb, arguments its schema refuses): the executor never
 * admits one, and a body still answers it with ok:false rather than acting on it.
 */
export function unadmitted(verb: string, args: Record<string, unknown>): Intent {
  return { verb, args } as unknown as Intent;
}

export interface ContractOptions {
  /** A verb that is safe to perform on this body in a test. */
  readonly safeVerb: Intent;
  /** What a duck's success_when may check on this body, written out by the caller: each must be a number in metrics(). */
  readonly measures: readonly string[];
  /**
   * The part of a frame that only an intent may change. A real body's frame also carries clocks
   * and counters that move on their own; a simulator's whole frame is the default.
   */
  readonly actuated?: (state: Readonly<Record<string, unknown>>) => unknown;
}

export function bodyContract(name: string, open: () => Promise<Body>, opts: ContractOptions): void {
  const actuated = opts.actuated ?? ((state) => state);
  describe(`Body contract: ${name}`, () => {
    it('has an adapter:backend key', async () => {
      const body = await open();
      try {
        assert.match(body.key, /^[a-z0-9-]+:[a-z0-9-]+$/);
      } finally {
        await body.close();
      }
    });

    it('observing moves nothing', async () => {
      const body = await open();
      try {
        const obs = await body.observe();
        const before = JSON.stringify(actuated(body.frame().state));
        await body.observe();
        await body.observe();
        assert.equal(typeof obs.summary, 'string');
        assert.ok(obs.summary.length > 0);
        assert.equal(JSON.stringify(actuated(body.frame().state)), before);
      } finally {
        await body.close();
      }
    });

    it('answers a verb it does not know with ok:false, never a throw', async () => {
      const body = await open();
      try {
        const result = await body.perform(unadmitted('fly_to_the_moon', {}));
        assert.equal(result.ok, false);
        assert.match(result.summary, /fly_to_the_moon/);
      } finally {
        await body.close();
      }
    });

    it('performs a safe verb with a one-line result', async () => {
      const body = await open();
      try {
        const result = await body.perform(opts.safeVerb);
        assert.equal(result.ok, true, result.summary);
        assert.ok(!result.summary.includes('\n'));
      } finally {
        await body.close();
      }
    });

    it('gives JSON frames and numeric metrics, among them every one a success check may read', async () => {
      const body = await open();
      try {
        const frame = body.frame();
        assert.deepEqual(JSON.parse(JSON.stringify(frame.state)), frame.state);
        // A run observes before the pilot's first call, so a success check reads metrics after one.
        await body.observe();
        const metrics = body.metrics();
        for (const v of Object.values(metrics)) assert.equal(typeof v, 'number');
        for (const name of opts.measures) assert.equal(typeof metrics[name], 'number', `metrics() has no ${name}: ${JSON.stringify(metrics)}`);
      } finally {
        await body.close();
      }
    });

    it('stops and closes idempotently', async () => {
      const body = await open();
      await body.stop();
      await body.stop();
      await body.close();
      await body.close();
    });
  });
}
