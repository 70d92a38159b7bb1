/**
 * The duck robot_verb runs under without --duck: for every body quackd drives it parses, passes
 * the body check a run makes, allows only looking around and quacking, keeps small budgets, and
 * off a simulator puts every verb that moves the body behind a person's yes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listBodies } from '../../src/bodies/index.js';
import { checkSessionDuck, defaultDuck, DEFAULT_SESSION_BUDGETS } from '../../src/mcp/duck.js';
import { MOTION_VERBS } from '../../src/safety/motion.js';

describe('the built-in session duck', () => {
  for (const body of listBodies()) {
    it(`is conservative on ${body.key}`, () => {
      const duck = checkSessionDuck(defaultDuck(body), body);
      assert.equal(duck.name, 'mcp');
      assert.ok(duck.verbs.includes('quack'));
      assert.deepEqual(duck.verbs.filter((v) => v !== 'search_scan' && v !== 'quack'), []);
      assert.deepEqual(duck.budgets, DEFAULT_SESSION_BUDGETS);
      const moving = duck.verbs.filter((v) => MOTION_VERBS.has(v));
      assert.deepEqual(duck.confirm, body.seeded === true ? [] : moving);
    });
  }

  it('leaves out a verb the body names but does not perform yet (the real duck has no camera)', () => {
    const real = listBodies().find((b) => b.key === 'microduck:jsonrpc');
    assert.ok(real !== undefined);
    assert.deepEqual(checkSessionDuck(defaultDuck(real), real).verbs, ['quack']);
  });
});
