/**
 * An admitted intent, typed down to the body: the verb's own zod schema parsed its arguments, so
 * a body reads `intent.args.degrees` as the number the schema promised, never `Number(args[…])`.
 * Only the safety executor admits intents (src/safety/executor.ts).
 */
import type { z } from 'zod';
import type { Verb } from './verb.js';
import { antennas } from './antennas.js';
import { drive } from './drive.js';
import { kick } from './kick.js';
import { look } from './look.js';
import { lookAround } from './look-around.js';
import { quack } from './quack.js';
import { report } from './report.js';
import { searchScan } from './search-scan.js';
import { torque } from './torque.js';
import { turn } from './turn.js';
import { turnBody } from './turn-body.js';
import { walk } from './walk.js';

/** The verbs a body performs, by name. */
export const BODY_VERBS = { search_scan: searchScan, turn, walk, kick, quack, torque, look, look_around: lookAround, turn_body: turnBody, antennas, drive, report } as const;

export type BodyVerbName = keyof typeof BODY_VERBS;

export type BodyIntent = { [K in BodyVerbName]: { readonly verb: K; readonly args: z.infer<(typeof BODY_VERBS)[K]['input']> } }[BodyVerbName];

const isBodyVerb = (name: string): name is BodyVerbName => Object.hasOwn(BODY_VERBS, name);

/**
 * The intent for `verb` with `args` that `verb.input` has already parsed (the executor parses
 * every call once), when `verb` is that body verb itself and not a look-alike of the same name.
 */
export function admitIntent(verb: Verb, args: unknown): BodyIntent | undefined {
  const name = verb.name;
  if (!isBodyVerb(name) || BODY_VERBS[name] !== verb) return undefined;
  // Parsed by the schema of the very verb named: TypeScript cannot follow that correlation
  // through the map, so it is told once, here.
  return { verb: name, args } as BodyIntent;
}
