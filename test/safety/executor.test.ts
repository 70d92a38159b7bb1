import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { findDuck } from '../../src/ducks/find.js';
import { noTtyGate, ttyGate, yesGate } from '../../src/safety/gate.js';
import { duck } from '../helpers/ducks.js';
import { harness } from '../helpers/run-harness.js';
import { scripted } from '../helpers/scripted-provider.js';

const quackOnly = duck('verbs: [quack]\nbudgets: { steps: 5, llm_calls: 10 }');

describe('the allowlist and argument schemas', () => {
  it('refuses a verb outside the allowlist; it never reaches the body', async () => {
    const h = harness(quackOnly);
    const ex = await h.executor.execute({ id: '1', name: 'kick', args: { foot: 'left' } });
    assert.deepEqual(ex, { kind: 'refused', verb: 'kick', reason: "not in this duck's verbs" });
    assert.equal(h.body.performed.length, 0);
    assert.equal(h.budgets.stepsUsed, 0);
  });

  it('refuses an unknown verb with a suggestion', async () => {
    const h = harness(quackOnly);
    const ex = await h.executor.execute({ id: '1', name: 'quak', args: {} });
    assert.equal(ex.kind, 'refused');
    assert.match(ex.kind === 'refused' ? ex.reason : '', /unknown verb \(did you mean "quack"\?\)/);
    assert.equal(h.body.performed.length, 0);
  });

  it('refuses arguments that fail the schema, naming the field', async () => {
    const h = harness(findDuck('find-and-kick'));
    for (const args of [{ metres: 'far' }, { metres: 50 }, {}, { metres: 1, speed: 9 }, null, 'walk 1 m']) {
      const ex = await h.executor.execute({ id: '1', name: 'walk', args });
      assert.equal(ex.kind, 'refused', `args ${JSON.stringify(args)}`);
    }
    const ex = await h.executor.execute({ id: '1', name: 'walk', args: { metres: 'far' } });
    assert.match(ex.kind === 'refused' ? ex.reason : '', /^invalid arguments: metres: /);
    assert.equal(h.body.performed.length, 0);
  });

  it('refuses a call the provider could not parse', async () => {
    const h = harness(quackOnly);
    const ex = await h.executor.execute({ id: '1', name: 'quack', args: undefined, error: 'arguments are not JSON' });
    assert.deepEqual(ex, { kind: 'refused', verb: 'quack', reason: 'invalid call: arguments are not JSON' });
    assert.equal(h.body.performed.length, 0);
  });

  it('admits an allowed verb with valid arguments and counts a step', async () => {
    const h = harness(quackOnly);
    const ex = await h.executor.execute({ id: '1', name: 'quack', args: {} });
    assert.equal(ex.kind, 'done');
    assert.deepEqual(h.body.performed, [{ verb: 'quack', args: {} }]);
    assert.equal(h.budgets.stepsUsed, 1);
  });

  it('does not believe a declared success the body did not measure', async () => {
    const h = harness(findDuck('find-and-kick'));
    const ex = await h.executor.execute({ id: '1', name: 'declare_success', args: { reason: 'I kicked it, trust me' } });
    assert.equal(ex.kind, 'refused');
    assert.match(ex.kind === 'refused' ? ex.reason : '', /not accepted: ball_displaced_m is 0, needs ≥ 0\.3/);
  });
});

describe('confirmation gates', () => {
  const gated = duck('verbs: [quack, turn]\nconfirm: [turn]');

  it('are denied without a TTY: nothing reaches the body, no step is spent', async () => {
    const h = harness(gated, { gate: noTtyGate });
    const ex = await h.executor.execute({ id: '1', name: 'turn', args: { degrees: 10 } });
    assert.equal(ex.kind, 'denied');
    assert.match(ex.kind === 'denied' ? ex.reason : '', /--yes to allow/);
    assert.equal(h.body.performed.length, 0);
    assert.equal(h.budgets.stepsUsed, 0);
    assert.ok(h.events.some((e) => e.type === 'gate' && !e.allowed && e.how === 'no-tty'));
  });

  it('open with --yes, and ungated verbs are never asked about', async () => {
    const h = harness(gated, { gate: yesGate });
    assert.equal((await h.executor.execute({ id: '1', name: 'turn', args: { degrees: 10 } })).kind, 'done');
    assert.equal((await h.executor.execute({ id: '2', name: 'quack', args: {} })).kind, 'done');
    assert.deepEqual(h.events.filter((e) => e.type === 'gate').length, 1);
    assert.equal(h.body.performed.length, 2);
  });

  it('hold torque on, never torque off: a stop is never gated', async () => {
    const h = harness(duck('verbs: [torque]\nconfirm: [torque]'), { gate: noTtyGate });
    const on = await h.executor.execute({ id: '1', name: 'torque', args: { on: true } });
    assert.equal(on.kind, 'denied');
    const off = await h.executor.execute({ id: '2', name: 'torque', args: { on: false } });
    assert.equal(off.kind === 'done' ? off.result.summary : off.kind, 'torque off: limp');
    assert.deepEqual(h.body.performed, [{ verb: 'torque', args: { on: false } }]);
    assert.deepEqual(h.events.filter((e) => e.type === 'gate').map((e) => e.type === 'gate' && e.verb), ['torque'], 'torque off was not asked about');
  });

  it('ask on a terminal: y allows, anything else denies', async () => {
    for (const [answer, allowed] of [['y\n', true], ['yes\n', true], ['n\n', false], ['\n', false], ['sure\n', false]] as const) {
      const input = new PassThrough();
      const output = new PassThrough();
      let asked = '';
      output.on('data', (d: Buffer) => (asked += d.toString()));
      const h = harness(gated, { gate: ttyGate(input, output) });
      const pending = h.executor.execute({ id: '1', name: 'turn', args: { degrees: 10 } });
      input.write(answer);
      const ex = await pending;
      assert.equal(ex.kind === 'done', allowed, `answer ${JSON.stringify(answer)}`);
      assert.match(asked, /turn 10 — confirm\? \[y\/N\]/);
      assert.equal(h.body.performed.length, allowed ? 1 : 0);
    }
  });
});

describe('an unanswered gate', () => {
  it('end of input (Ctrl-D) or a stopped run is "not confirmed", never a person\'s no', async () => {
    const gated = duck('verbs: [turn]\nconfirm: [turn]');
    const input = new PassThrough();
    const h = harness(gated, { gate: ttyGate(input, new PassThrough()) });
    const pending = h.executor.execute({ id: '1', name: 'turn', args: { degrees: 10 } });
    input.end();
    const ex = await pending;
    assert.equal(ex.kind === 'denied' ? ex.reason : ex.kind, 'not confirmed: the run was stopped');
    assert.ok(h.events.some((e) => e.type === 'gate' && e.how === 'aborted'));
    const abort = new AbortController();
    const h2 = harness(gated, { gate: ttyGate(new PassThrough(), new PassThrough()) });
    const pending2 = h2.executor.execute({ id: '1', name: 'turn', args: { degrees: 10 } }, abort.signal);
    abort.abort();
    assert.equal((await pending2).kind, 'denied');
    assert.equal(h2.body.performed.length + h.body.performed.length, 0);
  });
});

describe('dry run', () => {
  it('sends no intent to the body, invents marked results, leaves the body untouched', async () => {
    const h = harness(findDuck('find-and-kick'), { dryRun: true });
    const before = JSON.stringify(h.body.frame().state);
    const result = await h.fly(scripted([[{ name: 'search_scan', args: {} }], [{ name: 'walk', args: { metres: 1 } }], [{ name: 'kick', args: { foot: 'left' } }], [{ name: 'declare_success', args: { reason: 'done' } }]]));
    assert.equal(h.body.performed.length, 0);
    assert.equal(JSON.stringify(h.body.frame().state), before);
    const results = h.events.filter((e) => e.type === 'verb_result');
    assert.equal(results.length, 3);
    for (const r of results) {
      assert.ok(r.type === 'verb_result' && r.invented);
      assert.match(r.type === 'verb_result' ? r.summary : '', /^\(dry run: not sent\)/);
    }
    assert.equal(result.outcome.status, 'success');
    assert.match(result.outcome.reason, /dry run: not verified/);
  });
});
