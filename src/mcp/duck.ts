/**
 * The duck robot_verb runs under: the allowlist, budgets and gates an MCP client's verbs get, as a
 * run gets its duck's. `--duck NAME|PATH` names one; without it each robot gets one made for its
 * body as `--goal` makes it: the verbs the body performs, a few steps, and on a real body every verb
 * that moves behind a person's yes. Either travels as a duck's text, so a `quackd serve` checks it
 * as its own.
 */
import { readFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { BodyEntry, RobotCan } from '../bodies/index.js';
import { checkDuckForBody } from '../ducks/check.js';
import type { Duck } from '../ducks/duck.js';
import { STARTERS_DIR, findDuck } from '../ducks/find.js';
import { parseDuck } from '../ducks/parse.js';
import { authorlessGates } from '../safety/motion.js';

/** A duck as a run on request takes it (RunOnRequest's `duck` and `text`). */
export interface SessionDuck {
  /** Its file (the run's name is the file's stem), or `mcp` for the built-in one. */
  readonly duck: string;
  readonly text: string;
}

/** Small: a person at a desktop client approves each call, and a session that runs out ends. */
export const DEFAULT_SESSION_BUDGETS = { steps: 6, llm_calls: 12, seconds: 300 } as const;

/** The built-in duck for a robot of `body`: the verbs it performs now (`can`, robotCan()); off a simulator, those that move behind a gate. */
export function defaultDuck(body: BodyEntry, can: RobotCan): SessionDuck {
  const verbs = can.verbs;
  const confirm = authorlessGates(body, verbs);
  const { steps, llm_calls, seconds } = DEFAULT_SESSION_BUDGETS;
  const text = [
    '---',
    'description: what an assistant over MCP may do with robot_verb unless serve-mcp names a duck (--duck)',
    `robot: ${body.key}`,
    `verbs: [${verbs.join(', ')}]`,
    `budgets: { steps: ${steps}, llm_calls: ${llm_calls}, seconds: ${seconds} }`,
    ...(confirm.length > 0 ? [`confirm: [${confirm.join(', ')}]`] : []),
    '---',
    '# Looked after over MCP',
    '',
    `You are a small robot (${body.key}); an assistant over MCP calls your verbs one at a time.`,
    '',
    '1. Do the verb the assistant asks for; a verb that moves a real robot waits for a person\'s yes.',
    '2. Declare success or failure to end the session.',
    '',
  ].join('\n');
  return { duck: 'mcp', text };
}

/** `--duck`: a starter or one of yours by name, or a path; malformed is an InputError naming the line. */
export function namedDuck(ref: string, ducksDir: string): SessionDuck {
  const found = findDuck(ref, ducksDir);
  const path = found.source.startsWith('starter:') ? join(STARTERS_DIR, `${found.name}.duck`) : found.source;
  return { duck: path, text: readFileSync(path, 'utf8') };
}

/** The session duck parsed and checked against a robot as a run would (its verbs performed, its metrics measured, as `can` says). */
export function checkSessionDuck(duck: SessionDuck, body: BodyEntry, can: RobotCan): Duck {
  const parsed = parseDuck(duck.text, duck.duck, basename(duck.duck, extname(duck.duck)));
  checkDuckForBody(parsed, body, can);
  return parsed;
}
