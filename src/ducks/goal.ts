/**
 * `quackd run --goal "text"`: an ad-hoc duck with the body's own verbs and default budgets. On a
 * real body its motion verbs need a person's yes (or --yes), as a careful duck's author would ask.
 */
import type { BodyEntry, RobotCan } from '../bodies/index.js';
import { authorlessGates } from '../safety/motion.js';
import { DEFAULT_BUDGETS, type Duck } from './duck.js';

/** `can`: what the robot performs as its settings make it (robotCan()); the duck offers those verbs. */
export function goalDuck(goal: string, body: BodyEntry, can: RobotCan): Duck {
  const text = [
    '# Ad-hoc goal',
    '',
    `You are a small robot (${body.key}). Your goal, given by a person: ${goal}`,
    '',
    '## Strategy',
    '1. Look at the observation and decide which verb brings you closest to the goal.',
    '2. Call one verb at a time and read its result before the next.',
    '3. When the goal is reached, remember what is worth knowing next time (if memory is on), then declare success;',
    '   when it cannot be reached, declare failure and say why.',
  ].join('\n');
  const verbs = [...can.verbs];
  return {
    name: 'goal',
    source: '--goal',
    robot: body.key,
    verbs,
    budgets: DEFAULT_BUDGETS,
    confirm: authorlessGates(body, verbs),
    successWhen: [],
    text,
    lines: { verbs: [], confirm: [] },
  };
}
