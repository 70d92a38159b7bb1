/**
 * The keys a zod schema takes at a path into its value, through optional, default, preprocess,
 * union and record: what an unknown key of a config file was probably meant to be.
 */
import type { z } from 'zod';

interface Def {
  readonly type: string;
  readonly innerType?: z.core.$ZodType;
  readonly in?: z.core.$ZodType;
  readonly out?: z.core.$ZodType;
  readonly options?: readonly z.core.$ZodType[];
  readonly shape?: Readonly<Record<string, z.core.$ZodType>>;
  readonly valueType?: z.core.$ZodType;
}

export function keysAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): string[] {
  const def = schema._zod.def as unknown as Def;
  if (def.innerType !== undefined) return keysAt(def.innerType, path);
  if (def.in !== undefined && def.out !== undefined) return [...keysAt(def.in, path), ...keysAt(def.out, path)];
  if (def.options !== undefined) return [...new Set(def.options.flatMap((o) => keysAt(o, path)))];
  if (def.type === 'object' && def.shape !== undefined) {
    const [first, ...rest] = path;
    if (first === undefined) return Object.keys(def.shape);
    const next = def.shape[String(first)];
    return next !== undefined ? keysAt(next, rest) : [];
  }
  if (def.type === 'record' && def.valueType !== undefined && path.length > 0) return keysAt(def.valueType, path.slice(1));
  return [];
}
