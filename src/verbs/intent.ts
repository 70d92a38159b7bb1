/**
 * An admitted intent, typed down to the body: the verb's own zod schema parsed its arguments, so
 * a body reads `intent.args.degrees` as the number the schema promised, never `Number(args[…])`.
 * Only the safety executor admits intents (src/safety/executor.ts).
 */
import type { z } from 'zod';
import { kick } from './kick.js';
import { quack } from './quack.js';
import { searchScan } from './search-scan.js';
import { torque } from './torque.js';
import { turn } from './turn.js';
import { walk } from './walk.js';

/** The verbs a body performs, by name. */
export const BODY_VERBS = { search_scan: searchScan, turn, walk, kick, quack, torque } as const;

export type BodyVerbName = keyof typeof BODY_VERBS;

export type BodyIntent = { [K in BodyVerbName]: { readonly verb: K; readonly args: z.infer<(typeof BODY_VERBS)[K]['input']> } }[BodyVerbName];

const isBodyVerb = (name: string): name is BodyVerbName => Object.hasOwn(BODY_VERBS, name);

/** The intent for `verb` with `args`, when it is a body verb and its schema admits them. */
export function admitIntent(verb: string, args: unknown): BodyIntent | undefined {
  if (!isBodyVerb(verb)) return undefined;
  const parsed = BODY_VERBS[verb].input.safeParse(args);
  // The pair is checked by the schema of the very verb named: TypeScript cannot follow that
  // correlation through the map, so it is told once, here.
  return parsed.success ? ({ verb, args: parsed.data } as BodyIntent) : undefined;
}
