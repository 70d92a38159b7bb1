/**
 * Checks a parsed duck against the body it will run on: every verb it names must be one that
 * body performs (or one quackd itself handles). Runs before any body is opened.
 */
import type { BodyEntry } from '../bodies/index.js';
import { InputError } from '../cli/errors.js';
import { didYouMean } from '../cli/suggest.js';
import { DECLARE_VERBS } from '../verbs/registry.js';
import type { Duck } from './duck.js';

/** Verbs quackd handles itself, valid on every body. */
const QUACKD_VERBS: readonly string[] = [...DECLARE_VERBS, 'remember'];

export function checkDuckForBody(duck: Duck, body: BodyEntry): void {
  const valid = [...body.verbs, ...QUACKD_VERBS];
  for (const [i, verb] of duck.verbs.entries()) {
    if (!valid.includes(verb)) {
      throw new InputError(`${duck.source}:${duck.lines.verbs[i] ?? 1}: verbs: "${verb}" is not a verb of ${body.key}${didYouMean(verb, valid)}`);
    }
  }
}
