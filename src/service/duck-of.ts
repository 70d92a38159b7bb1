/**
 * The duck a run on request names: an ad-hoc goal, a duck file's text the asker read (the CLI
 * over the socket, whose ducks folder and paths the service may not see), or a name the service
 * looks up (starters, then the ducks folder of its own data directory); with budget overrides.
 */
import { basename, extname } from 'node:path';
import type { BodyEntry, RobotCan } from '../bodies/index.js';
import { checkDuckForBody } from '../ducks/check.js';
import type { Duck } from '../ducks/duck.js';
import { findDuckByName, looksLikePath } from '../ducks/find.js';
import { InputError } from '../errors.js';
import { printable } from '../text/printable.js';
import { goalDuck } from '../ducks/goal.js';
import { parseDuck } from '../ducks/parse.js';
import type { RunOnRequest } from './api.js';

/** Checked against the robot as `can` says (robotCan() of its settings), as `quackd run` checks it. */
export function duckOf(req: RunOnRequest, body: BodyEntry, can: RobotCan, ducksDir: string): Duck {
  // The service reads no path for anyone: a door that takes one reads it for its asker (the socket's readable-by.ts) and sends the text.
  if (req.goal === undefined && req.text === undefined && looksLikePath(req.duck)) throw new InputError(`"${printable(req.duck)}": a duck on request is named (a starter or one in the ducks folder), or sent as text`);
  const duck = req.goal !== undefined ? goalDuck(req.goal, body, can) : req.text !== undefined ? parseDuck(req.text, req.duck, basename(req.duck, extname(req.duck))) : findDuckByName(req.duck, ducksDir);
  const b = req.budgets ?? {};
  const withBudgets: Duck = { ...duck, budgets: { steps: b.steps ?? duck.budgets.steps, llm_calls: b.llm_calls ?? duck.budgets.llm_calls, seconds: b.seconds ?? duck.budgets.seconds } };
  checkDuckForBody(withBudgets, body, can);
  return withBudgets;
}
