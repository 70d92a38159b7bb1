/** What the pilot reads counts things in good English: `1 step`, never `1 steps`. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildSystemPrompt } from '../../src/pilot/prompt.js';
import { BudgetTracker } from '../../src/safety/budgets.js';
import { duck } from '../helpers/ducks.js';

describe('plurals in the pilot\'s text', () => {
  it('the system prompt: 1 body step, 1 reply, 1 second', () => {
    const d = duck('verbs: [quack]\nbudgets: { steps: 1, llm_calls: 1, seconds: 1 }');
    const prompt = buildSystemPrompt(d, 'microduck:sim2d', [], '');
    assert.match(prompt, /At most 1 body step, 1 reply from you, and 1 second\./);
    const many = buildSystemPrompt(duck('verbs: [quack]\nbudgets: { steps: 2, llm_calls: 3, seconds: 4 }'), 'microduck:sim2d', [], '');
    assert.match(many, /At most 2 body steps, 3 replies from you, and 4 seconds\./);
  });

  it('the budget line after each step: 1 step, 1 call', () => {
    const b = new BudgetTracker({ steps: 2, llm_calls: 2, seconds: 60 }, () => 0);
    b.chargeStep();
    b.chargeLlm();
    assert.equal(b.remaining(), 'budget left: 1 step, 1 call, 60 s');
  });
});
