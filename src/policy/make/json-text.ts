/** JSON as the generated files write it: readable, stable, and short where a list is only numbers. */

/** JSON, two-space indented, with lists of numbers on one line. */
export function jsonText(value: unknown, indent = ''): string {
  if (Array.isArray(value) && value.every((v) => typeof v === 'number')) return `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const inner = `${indent}  `;
    const entries = Object.entries(value).map(([k, v]) => `${inner}${JSON.stringify(k)}: ${jsonText(v, inner)}`);
    return `{\n${entries.join(',\n')}\n${indent}}`;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) throw new RangeError(`json: ${value} is not a finite number`);
  return JSON.stringify(value);
}
