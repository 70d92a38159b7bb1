/**
 * The hand-written checks of the firmware's two hot messages (src/bridge/wire-check.ts) say
 * exactly what protocol.ts's zod schemas say: on payloads near the valid ones (each field valid,
 * missing, or of a wrong kind; extra fields; tuples of the wrong length), both accept with the
 * same value or both refuse. A check that lets through what the schema refuses would hand the
 * control loop a malformed state; one that refuses what the schema takes would drop good ones.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { incomingSchema, stateSchema } from '../../src/bridge/protocol.js';
import { checkEnvelope, checkState } from '../../src/bridge/wire-check.js';

const junk = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom(-1, 0, 1, 1.5, -0.25, 2 ** 53, 2 ** 53 + 2, 1e300),
  fc.string({ maxLength: 3 }),
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean()), { maxLength: 4 }),
);
const count = fc.oneof(fc.nat(), fc.constant(2 ** 32 - 1));
const num = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
const vec = (n: number, item: fc.Arbitrary<unknown>) => fc.oneof(fc.array(item, { minLength: n, maxLength: n }), fc.array(item, { maxLength: n + 2 }));

/** Each field valid most of the time, else missing or junk; sometimes an extra one. */
function near(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(fields).map(([k, valid]) => fc.oneof({ weight: 30, arbitrary: valid.map((v) => [k, v] as const) }, { weight: 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: junk.map((v) => [k, v] as const) }));
  return fc.tuple(fc.tuple(...entries), fc.option(fc.tuple(fc.constantFrom('extra', 'torque_unconfirmed'), junk))).map(([kvs, extra]) => {
    const o: Record<string, unknown> = {};
    for (const kv of kvs) if (kv !== undefined) o[kv[0]] = kv[1];
    if (extra !== null) o[extra[0]] = extra[1];
    return o;
  });
}

const rx = near({ ok: count, crc: count, malformed: count, overlong: count, runt: count, json: count });
const state = near({
  seq: count,
  t: count,
  torque: fc.boolean(),
  pos: fc.array(num, { maxLength: 14 }),
  vel: fc.array(num, { maxLength: 14 }),
  gyro: vec(3, num),
  accel: vec(3, num),
  contacts: vec(2, fc.boolean()),
  battery_v: num,
  quacks: count,
  targets: count,
  rx,
  tx_dropped: count,
  limited: count,
  torque_retries: count,
});

/** JSON's view of a value: keys holding undefined are absent, as they would be on the wire. */
const wire = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

describe('wire-check: the hot messages checked by hand, held to the zod schemas', () => {
  it('a state near a valid one: checkState accepts exactly what stateSchema accepts, with the same value', () => {
    let accepted = 0;
    fc.assert(
      fc.property(state, (s) => {
        const oracle = stateSchema.safeParse(s);
        const mine = checkState(s);
        if (oracle.success) accepted++;
        assert.deepEqual(wire(mine), oracle.success ? wire(oracle.data) : undefined);
      }),
      { numRuns: 5000, seed: 11 },
    );
    // The generator must reach both sides, or the property proves nothing.
    assert.ok(accepted > 200 && accepted < 4800, `accepted ${accepted} of 5000`);
  });

  it('an envelope near a valid one: checkEnvelope classifies as the schema and its reading of it do', () => {
    const error = near({ code: fc.integer({ min: -33000, max: 0 }), message: fc.string({ maxLength: 5 }), data: junk });
    const envelope = near({
      jsonrpc: fc.constantFrom('2.0', '1.0'),
      id: fc.oneof(fc.nat(), fc.string({ maxLength: 3 }), fc.constant(null)),
      result: junk,
      error,
      method: fc.constantFrom('state', 'fault', 'x'),
      params: junk,
    });
    const kinds = { response: 0, notification: 0, none: 0 };
    fc.assert(
      fc.property(envelope, (m) => {
        const p = incomingSchema.safeParse(m);
        let oracle: unknown;
        if (p.success) {
          const d = p.data;
          if ('method' in d) oracle = { kind: 'notification', method: d.method, params: d.params };
          else if (d.result !== undefined || d.error !== undefined) oracle = { kind: 'response', id: d.id, result: d.result, error: d.error };
        }
        const mine = checkEnvelope(m);
        kinds[mine?.kind ?? 'none']++;
        assert.deepEqual(wire(mine), wire(oracle));
      }),
      { numRuns: 5000, seed: 12 },
    );
    for (const [kind, n] of Object.entries(kinds)) assert.ok(n > 100, `${kind}: ${n} of 5000`);
  });

  it('what is not an object is refused', () => {
    for (const v of [null, 1, 'state', [], [1, 2], true]) {
      assert.equal(checkState(v), undefined);
      assert.equal(checkEnvelope(v), undefined);
    }
  });
});
