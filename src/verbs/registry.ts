/**
 * Every verb quackd knows, by name. The safety executor admits only these; the pilot's tool list
 * and the prompt are built from them.
 */
import { z } from 'zod';
import { declareFailure } from './declare-failure.js';
import { declareSuccess } from './declare-success.js';
import { BODY_VERBS } from './intent.js';
import { remember } from './remember.js';
import { recall } from './recall.js';
import { snapshot } from './snapshot.js';
import type { Verb } from './verb.js';

// The body verbs come from one list (intent.ts), so a verb a body performs is always one quackd knows.
const all: readonly Verb[] = [...Object.values(BODY_VERBS), snapshot, declareSuccess, declareFailure];

export const DECLARE_VERBS = ['declare_success', 'declare_failure'] as const;

export class VerbRegistry {
  private readonly byName = new Map<string, Verb>();

  constructor(verbs: readonly Verb[] = all) {
    for (const v of verbs) this.byName.set(v.name, v);
  }

  get(name: string): Verb | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /** A registry that also knows `extra` (e.g. `remember` when memory is on). */
  with(extra: readonly Verb[]): VerbRegistry {
    return new VerbRegistry([...this.byName.values(), ...extra]);
  }
}

export const defaultVerbs = new VerbRegistry();

/** Every verb quackd has, memory's included: what a name is, even when this run lacks it. */
export const everyVerb = new VerbRegistry([...all, remember, recall]);

/** The JSON Schema of a verb's input, as the LLM APIs want it. */
export function verbJsonSchema(verb: Verb): Record<string, unknown> {
  const schema = z.toJSONSchema(verb.input, { target: 'draft-7' }) as Record<string, unknown>;
  delete schema['$schema'];
  return schema;
}
