/** The value a parsed file holds at a schema issue's path, or undefined: what the person wrote there. */
export function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const key of path) v = typeof v === 'object' && v !== null && typeof key !== 'symbol' ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}
