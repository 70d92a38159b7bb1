/**
 * The keys a zod schema takes at a path into its value, through optional, default, preprocess,
 * union, record and array: what an unknown key of a config file was probably meant to be.
 */
import * as z from 'zod';

const isSchema = (value: unknown): value is z.core.$ZodType => value instanceof z.core.$ZodType;

/** A field of a schema's definition, when it is a schema itself. */
function inner(def: z.core.$ZodTypeDef, key: 'innerType' | 'in' | 'out' | 'valueType' | 'element'): z.core.$ZodType | undefined {
  const value: unknown = key in def ? Reflect.get(def, key) : undefined;
  return isSchema(value) ? value : undefined;
}

export function keysAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): string[] {
  const def = schema._zod.def;
  const wrapped = inner(def, 'innerType');
  if (wrapped !== undefined) return keysAt(wrapped, path);
  const [input, output] = [inner(def, 'in'), inner(def, 'out')];
  if (input !== undefined && output !== undefined) return [...keysAt(input, path), ...keysAt(output, path)];
  if (schema instanceof z.core.$ZodUnion) return [...new Set(schema._zod.def.options.flatMap((o) => keysAt(o, path)))];
  if (schema instanceof z.core.$ZodObject) {
    const shape = schema._zod.def.shape;
    const [first, ...rest] = path;
    if (first === undefined) return Object.keys(shape);
    const next = shape[String(first)];
    return next !== undefined ? keysAt(next, rest) : [];
  }
  const value = inner(def, 'valueType');
  if (def.type === 'record' && value !== undefined && path.length > 0) return keysAt(value, path.slice(1));
  // A list's rows (a servo duck's joints:): the path's next step is the row's index.
  const element = inner(def, 'element');
  if (def.type === 'array' && element !== undefined && path.length > 0) return keysAt(element, path.slice(1));
  return [];
}
