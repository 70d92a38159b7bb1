/**
 * Checks a parsed duck against the body it will run on: every verb it names must be one that
 * body performs now (or one quackd itself handles), and every metric its success check reads
 * must be one the body measures; a typo must never turn verification off. Runs before any body
 * is opened.
 */
import { pendingReason, robotCan, type BodyEntry, type RobotCan } from '../bodies/index.js';
import { InputError } from '../errors.js';
import { didYouMean, nearest } from '../text/suggest.js';
import { DECLARE_VERBS, everyVerb } from '../verbs/registry.js';
import type { Duck } from './duck.js';

/**
 * Verbs quackd handles itself, valid on every body: memory's (offered when memory is on) and the
 * sense verbs (`snapshot`, offered when the robot has a camera: its settings say, not its kind).
 */
const QUACKD_VERBS: readonly string[] = [...DECLARE_VERBS, ...everyVerb.names().filter((v) => ['memory', 'sense'].includes(everyVerb.get(v)?.kind ?? ''))];

/**
 * Why `verb` is refused on `body`, in one line: a likely typo gets "did you mean"; a verb the
 * body cannot do at all (another body's `kick` asked of Reachy Mini) gets the body's nearest
 * verb and the list of what it can do.
 */
function notAVerb(at: string, verb: string, body: BodyEntry, can: RobotCan, valid: readonly string[]): InputError {
  const typo = didYouMean(verb, valid);
  const performs = can.verbs;
  const near = nearest(verb, performs);
  if (typo !== '' || near === undefined) return new InputError(`${at} "${verb}" is not a verb of ${body.key}${typo}`);
  return new InputError(`${at} "${verb}" is not a verb of ${body.key}; its closest is "${near}"`, `its verbs: ${performs.join(', ')}`);
}

/**
 * `verb` is one `body` performs now (as the robot `can` says: a camera makes some verbs
 * performable; without it, as a robot of no settings), or one of quackd's own unless `bodyOnly`;
 * else an InputError starting with `at`.
 */
export function checkVerbForBody(at: string, verb: string, body: BodyEntry, bodyOnly = false, can: RobotCan = robotCan(body, {})): void {
  const valid = bodyOnly ? body.verbs : [...body.verbs, ...QUACKD_VERBS];
  if (!valid.includes(verb)) throw notAVerb(at, verb, body, can, valid);
  if (!body.verbs.includes(verb) || can.verbs.includes(verb)) return;
  throw new InputError(`${at} ${verb} ${pendingReason(body, verb) ?? 'is not performed'} on ${body.key}`);
}

/** `duck` fits the robot: a body of `body`'s kind that performs and measures what `can` says (robotCan()). */
export function checkDuckForBody(duck: Duck, body: BodyEntry, can: RobotCan): void {
  for (const [i, verb] of duck.verbs.entries()) checkVerbForBody(`${duck.source}:${duck.lines.verbs[i] ?? 1}: verbs:`, verb, body, false, can);
  const measured = can.metrics;
  for (const check of duck.successWhen) {
    if (!measured.includes(check.metric)) {
      throw new InputError(
        `${duck.source}:${duck.lines.successWhen ?? 1}: success_when: ${body.key} does not measure "${check.metric}"${didYouMean(check.metric, measured)}`,
        `it measures ${measured.join(', ')}`,
      );
    }
  }
}
