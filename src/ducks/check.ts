/**
 * Checks a parsed duck against the body it will run on: every verb it names must be one that
 * body performs now (or one quackd itself handles), and every metric its success check reads
 * must be one the body measures; a typo must never turn verification off. Runs before any body
 * is opened.
 */
import type { BodyEntry } from '../bodies/index.js';
import { InputError } from '../errors.js';
import { didYouMean } from '../text/suggest.js';
import { DECLARE_VERBS, everyVerb } from '../verbs/registry.js';
import type { Duck } from './duck.js';

/** Verbs quackd handles itself, valid on every body. */
const QUACKD_VERBS: readonly string[] = [...DECLARE_VERBS, ...everyVerb.names().filter((v) => everyVerb.get(v)?.kind === 'memory')];

export function checkDuckForBody(duck: Duck, body: BodyEntry): void {
  const valid = [...body.verbs, ...QUACKD_VERBS];
  for (const [i, verb] of duck.verbs.entries()) {
    const at = `${duck.source}:${duck.lines.verbs[i] ?? 1}: verbs:`;
    if (!valid.includes(verb)) throw new InputError(`${at} "${verb}" is not a verb of ${body.key}${didYouMean(verb, valid)}`);
    const pending = body.pending?.[verb];
    if (pending !== undefined) throw new InputError(`${at} ${verb} ${pending} on ${body.key}`);
  }
  for (const check of duck.successWhen) {
    if (!body.metrics.includes(check.metric)) {
      throw new InputError(
        `${duck.source}:${duck.lines.successWhen ?? 1}: success_when: ${body.key} does not measure "${check.metric}"${didYouMean(check.metric, body.metrics)}`,
        `it measures ${body.metrics.join(', ')}`,
      );
    }
  }
}
