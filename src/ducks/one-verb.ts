/**
 * A one-line duck (`1. walk 1.0`) for one verb a person asked for with no pilot to ask: `quackd
 * do`, `quackd torque`, a dashboard's torque switch. Played by the script pilot, it goes through
 * everything a run does; on a real body the verb that moves stands behind a gate, as `--goal`'s
 * do (an unknown body, a fleet name known only to the service, gets the gate too: a yes too many
 * is safe). Its text, so it crosses the control socket as a duck file's text does.
 */
import { authorlessGates } from '../safety/motion.js';

/** `successWhen`: the check a declared success must pass against the body's measurements (`torque == 0`). */
export function oneVerbDuckText(what: string, verb: string, line: string, body: { readonly seeded?: boolean } | undefined, seconds: number, successWhen?: string): string {
  const confirm = authorlessGates(body ?? {}, [verb]);
  return [
    '---',
    `description: one verb from ${what}`,
    `verbs: [${verb}]`,
    ...(confirm.length > 0 ? [`confirm: [${confirm.join(', ')}]`] : []),
    `budgets: { steps: 1, llm_calls: 2, seconds: ${seconds} }`,
    ...(successWhen !== undefined ? [`success_when: ${successWhen}`] : []),
    '---',
    `# ${what}`,
    '',
    `One verb a person asked for with ${what}, played as written.`,
    '',
    `1. ${line}`,
    '',
  ].join('\n');
}
