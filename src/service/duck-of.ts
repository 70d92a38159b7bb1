/**
 * The duck a run on request names: an ad-hoc goal, a duck file's text the asker read (the CLI
 * over the socket, whose ducks folder and paths the service may not see), or a name the service
 * looks up (starters, then the ducks folder of its own data directory); with budget overrides.
 */
import { basename, extname } from 'node:path';
import type { BodyEntry } from '../bodies/index.js';
import { checkDuckForBody } from '../ducks/check.js';
import type { Duck } from '../ducks/duck.js';
import { findDuck } from '../ducks/find.js';
import { goalDuck } from '../ducks/goal.js';
import { parseDuck } from '../ducks/parse.js';
import type { RunOnRequest } from './api.js';

export function duckOf(req: RunOnRequest, body: BodyEntry, ducksDir: string): Duck {
  const duck = req.goal !== undefined ? goalDuck(req.goal, body) : req.text !== undefined ? parseDuck(req.text, req.duck, basename(req.duck, extname(req.duck))) : findDuck(req.duck, ducksDir);
  const b = req.budgets ?? {};
  const withBudgets: Duck = { ...duck, budgets: { steps: b.steps ?? duck.budgets.steps, llm_calls: b.llm_calls ?? duck.budgets.llm_calls, seconds: b.seconds ?? duck.budgets.seconds } };
  checkDuckForBody(withBudgets, body);
  return withBudgets;
}
