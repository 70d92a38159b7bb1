/**
 * How deeply a text from outside nests, found without recursion, so a file or payload nested
 * thousands of levels deep is one input error naming the limit, never "Maximum call stack size
 * exceeded" from a parser, a schema or a printer further on.
 */

/** Deeper than any hand-written duck, config or command needs; far shallower than the stack. */
export const MAX_NESTING = 64;

/** The sentence every reader uses, so the limit reads the same from a duck, a config or a payload. */
export function nestingMessage(limit = MAX_NESTING): string {
  return `nested more than ${limit} levels deep (the nesting limit)`;
}

/**
 * The offset of the first `[` or `{` in JSON text that opens a level past `limit`, or undefined.
 * Brackets inside strings do not count; the text need not be valid JSON (JSON.parse says so).
 */
export function jsonTooDeep(text: string, limit = MAX_NESTING): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > limit) return i;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return undefined;
}
