/**
 * The duck robot_verb runs under without --duck: for every body quackd drives it parses, passes
 * the body check a run makes, offers the verbs the body performs (as --goal does), keeps small
 * budgets, and off a simulator puts every verb that moves the body behind a person's yes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listBodies, robotCan } from '../../src/bodies/index.js';
import { checkSessionDuck, defaultDuck, DEFAULT_SESSION_BUDGETS } from '../../src/mcp/duck.js';
import { MOTION_VERBS } from '../../src/safety/motion.js';

describe('the built-in session duck', () => {
  for (const body of listBodies()) {
    it(`offers the verbs of ${body.key}, its motion gated off a simulator`, () => {
      const duck = checkSessionDuck(defaultDuck(body, robotCan(body, {})), body, robotCan(body, {}));
      assert.equal(duck.name, 'mcp');
      assert.deepEqual(duck.verbs, body.verbs.filter((v) => body.pending?.[v] === undefined));
      assert.deepEqual(duck.budgets, DEFAULT_SESSION_BUDGETS);
      const moving = duck.verbs.filter((v) => MOTION_VERBS.has(v));
      assert.deepEqual(duck.confirm, body.seeded === true ? [] : moving);
    });
  }

  it('on the real duck: its verbs but search_scan (no camera yet), every one that moves behind a yes', () => {
    const real = listBodies().find((b) => b.key === 'microduck:jsonrpc');
    assert.ok(real !== undefined);
    const duck = checkSessionDuck(defaultDuck(real, robotCan(real, {})), real, robotCan(real, {}));
    assert.deepEqual(duck.verbs, ['quack', 'torque', 'walk', 'turn', 'kick']);
    assert.deepEqual(duck.confirm, ['torque', 'walk', 'turn', 'kick']);
  });
});
