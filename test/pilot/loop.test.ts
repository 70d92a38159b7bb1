import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findDuck } from '../../src/ducks/find.js';
import { createFakeProvider } from '../../src/pilot/providers/fake.js';
import { duck } from '../helpers/ducks.js';
import { harness } from '../helpers/run-harness.js';
import { scripted } from '../helpers/scripted-provider.js';
import { BudgetTracker } from '../../src/safety/budgets.js';
import type { Gate } from '../../src/safety/gate.js';

describe('budgets end the run, with the reason', () => {
  it('steps: the verb past the budget never reaches the body', async () => {
    const h = harness(duck('verbs: [quack]\nbudgets: { steps: 3, llm_calls: 50 }'));
    const result = await h.fly(scripted([[{ name: 'quack', args: {} }]]));
    assert.deepEqual(result.outcome, { status: 'budget', reason: 'budget: 3 steps spent' });
    assert.equal(h.body.performed.length, 3);
    assert.ok(h.events.some((e) => e.type === 'budget' && e.budget === 'steps' && e.used === 3 && e.limit === 3));
  });

  it('llm_calls: a pilot that only talks is stopped', async () => {
    const h = harness(duck('verbs: [quack]\nbudgets: { steps: 50, llm_calls: 4 }'));
    const provider = scripted([[]]);
    const result = await h.fly(provider);
    assert.deepEqual(result.outcome, { status: 'budget', reason: 'budget: 4 LLM calls spent' });
    assert.equal(provider.requests.length, 4);
    // Each empty answer was told what was wrong.
    const last = provider.requests.at(-1)!.messages.at(-1);
    assert.match(last?.role === 'user' ? last.content : '', /you called no verb/);
  });

  it('llm_calls: refused calls are charged too, and never reach the body', async () => {
    const h = harness(duck('verbs: [quack]\nbudgets: { steps: 50, llm_calls: 3 }'));
    const result = await h.fly(scripted([[{ name: 'kick', args: { foot: 'left' } }]]));
    assert.equal(result.outcome.status, 'budget');
    assert.equal(h.body.performed.length, 0);
    assert.equal(h.events.filter((e) => e.type === 'refused').length, 3);
  });

  it('seconds: a hanging provider is cut off at the deadline', async () => {
    const h = harness(duck('verbs: [quack]\nbudgets: { seconds: 1 }'));
    const started = performance.now();
    const result = await h.fly(scripted(['hang']));
    assert.deepEqual(result.outcome, { status: 'budget', reason: 'budget: 1 s spent' });
    assert.ok(performance.now() - started < 5000);
  });
});

describe('remember without memory', () => {
  it('is refused as "memory is off", not as an unknown verb', async () => {
    const h = harness(duck('verbs: [quack]'));
    const ex = await h.executor.execute({ id: '1', name: 'remember', args: { text: 'x' } });
    assert.deepEqual(ex, { kind: 'refused', verb: 'remember', reason: 'memory is off for this run' });
  });
});

describe('the loop', () => {
  it('Ctrl-C (abort) ends the run as interrupted, mid-call', async () => {
    const h = harness(duck('verbs: [quack]'));
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    const result = await h.fly(scripted([[{ name: 'quack', args: {} }], 'hang']), abort.signal);
    assert.deepEqual(result.outcome, { status: 'interrupted', reason: 'stopped by Ctrl-C' });
  });

  it('tells the pilot each result and the sensors, and offers only allowed verbs', async () => {
    const provider = scripted([[{ name: 'quack', args: {} }, { name: 'walk', args: { metres: 1 } }], [{ name: 'declare_failure', args: { reason: 'bored' } }]]);
    const h = harness(duck('verbs: [quack, turn]'));
    const result = await h.fly(provider);
    assert.deepEqual(result.outcome, { status: 'failure', reason: 'bored' });
    assert.deepEqual(provider.requests[0]!.tools.map((t) => t.name), ['quack', 'turn', 'declare_success', 'declare_failure']);
    const obs = provider.requests[1]!.messages.at(-1);
    assert.equal(obs?.role, 'user');
    const text = obs?.role === 'user' ? obs.content : '';
    assert.match(text, /^last verb quack: ok — quack!$/m);
    assert.match(text, /^last verb walk: refused — not in this duck's verbs$/m);
    assert.match(text, /^camera: /m);
    assert.match(text, /^budget left: 11 steps, 19 calls, \d+ s$/m);
    assert.match(provider.requests[0]!.system, /numbered|1\. Do the thing/);
  });

  it('the fake pilot completes find-and-kick on many seeds, and the ball really moved', async () => {
    for (let seed = 0; seed < 25; seed++) {
      const h = harness(findDuck('find-and-kick'), { seed });
      const result = await h.fly(createFakeProvider());
      assert.equal(result.outcome.status, 'success', `seed ${seed}: ${result.outcome.reason}`);
      assert.ok(h.body.metrics()['ball_displaced_m']! >= 0.3, `seed ${seed}`);
      assert.ok(h.body.performed.some((i) => i.verb === 'kick'));
    }
  });

  it('the fake pilot says hello', async () => {
    const h = harness(findDuck('hello-world'));
    const result = await h.fly(createFakeProvider());
    assert.equal(result.outcome.status, 'success');
    assert.deepEqual(h.body.performed, [{ verb: 'quack', args: {} }]);
  });
});

describe('time at a confirmation gate', () => {
  it('is not charged to the seconds budget', async () => {
    // A person who takes longer to answer than the whole budget allows.
    const slowYes: Gate = { confirm: () => new Promise((resolve) => setTimeout(() => resolve({ allowed: true, how: 'tty' }), 1300)) };
    const h = harness(duck('verbs: [quack]\nconfirm: [quack]\nbudgets: { seconds: 1 }\nsuccess_when: quacks >= 1'), { gate: slowYes });
    const result = await h.fly(scripted([[{ name: 'quack', args: {} }], [{ name: 'declare_success', args: { reason: 'I quacked.' } }]]));
    assert.equal(result.outcome.status, 'success', result.outcome.reason);
    assert.equal(h.body.performed.length, 1);
    assert.ok(h.budgets.elapsedSeconds() < 1, `charged ${h.budgets.elapsedSeconds()} s`);
  });

  it('pauses the clock once, however often it is paused', () => {
    let now = 0;
    const b = new BudgetTracker({ steps: 1, llm_calls: 1, seconds: 10 }, () => now);
    now = 2000;
    b.pauseClock();
    now = 5000;
    b.pauseClock();
    assert.equal(b.msLeft(), 8000);
    now = 9000;
    b.resumeClock();
    b.resumeClock();
    now = 10_000;
    assert.equal(b.elapsedSeconds(), 3);
    assert.equal(b.timeUp(), false);
  });
});
