/**
 * A duck's strategy read as a script: each numbered line is one verb call (`1. walk 1.0`,
 * `2. turn 90`, `3. kick left`, `4. quack`), for the script pilot (--provider script) and
 * `quackd do`. Positional arguments fill the verb's input keys in the order its schema declares
 * them (walk: metres; turn: degrees; kick: foot); `key=value` names one. A line that is not a call
 * of one of the duck's verbs with arguments its schema admits is refused with its file and line,
 * before anything opens. Other lines (headings, prose) are the person's, not the script's.
 */
import { z } from 'zod';
import { InputError } from '../errors.js';
import { printable } from '../text/printable.js';
import { didYouMean } from '../text/suggest.js';
import { everyVerb } from '../verbs/registry.js';
import type { Duck } from './duck.js';

/** One line of a script: the verb and its arguments, checked against the verb's schema. */
export interface ScriptCall {
  /** 1-based line in the duck's file (or in its text when the file is not known). */
  readonly line: number;
  /** The call as written, after its number: `walk 1.0`. */
  readonly text: string;
  readonly verb: string;
  readonly args: Readonly<Record<string, unknown>>;
}

const NUMBERED = /^\s*\d+[.)]\s+(.*\S)\s*$/;
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/** A word as the schema would want it: a number, a yes/no (`torque on`), else the word itself. */
function value(word: string): unknown {
  if (NUMBER.test(word)) return Number(word);
  if (word === 'true' || word === 'on') return true;
  if (word === 'false' || word === 'off') return false;
  return word;
}

/** The keys of a verb's input, in the order its schema declares them. */
function inputKeys(input: z.ZodType): string[] {
  return input instanceof z.ZodObject ? Object.keys(input.shape) : [];
}

/** The call one line writes (`walk 1.0 speed=0.5`), or why it is not one, in a few words. */
export function readCall(text: string, verbs: readonly string[]): { verb: string; args: Record<string, unknown> } | { error: string } {
  const [name = '', ...words] = text.trim().split(/\s+/);
  const verb = everyVerb.get(name);
  // A sense verb is offered only where there is a camera: say so rather than "not one of its verbs".
  if (verb?.kind === 'sense' && !verbs.includes(name)) return { error: `${name} needs a camera, and this robot has none here (a camera: setting in its config gives it one)` };
  if (verb === undefined || !verbs.includes(name)) return { error: `"${printable(name)}" is not one of this duck's verbs${didYouMean(name, verbs)}` };
  const keys = inputKeys(verb.input);
  const args: Record<string, unknown> = {};
  let next = 0;
  for (const word of words) {
    const eq = word.indexOf('=');
    if (eq > 0) {
      args[word.slice(0, eq)] = value(word.slice(eq + 1));
      continue;
    }
    const key = keys[next++];
    if (key === undefined) return { error: keys.length === 0 ? `${name} takes no arguments` : `${name} takes ${keys.join(', ')}; "${printable(word)}" is one too many` };
    args[key] = value(word);
  }
  const checked = verb.input.safeParse(args);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    return { error: `${name} ${keys.length > 0 ? `takes ${keys.join(', ')}` : 'takes no arguments'}: ${where}${issue?.message ?? 'invalid arguments'}` };
  }
  return { verb: name, args: checked.data as Record<string, unknown> };
}

/** Every numbered line of `text` as a call; `firstLine` is the line `text` starts on in its file. */
export function readScriptText(text: string, verbs: readonly string[], source: string, firstLine = 1): ScriptCall[] {
  const calls: ScriptCall[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const m = NUMBERED.exec(raw);
    if (m === null) continue;
    const line = firstLine + i;
    const call = readCall(m[1]!, verbs);
    if ('error' in call) throw new InputError(`${source}:${line}: "${printable(m[1]!)}" is not a verb call: ${call.error}`, 'a script line is a verb and its arguments, e.g. "1. walk 1.0" or "2. turn degrees=90"');
    calls.push({ line, text: m[1]!, ...call });
  }
  if (calls.length === 0) throw new InputError(`${source}:${firstLine}: no numbered lines to play`, 'e.g. "1. walk 1.0"');
  return calls;
}

/** The duck's strategy as a script, checked against its verbs: an InputError naming the file and line otherwise. */
export function readScript(duck: Duck): ScriptCall[] {
  return readScriptText(duck.text, duck.verbs, duck.source, duck.lines.text ?? 1);
}
