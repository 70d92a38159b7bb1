/**
 * The control socket's framing: one JSON message per line. Apart from protocol.ts (its zod
 * schemas), so a client that only asks (`quackd status`) starts without loading zod.
 */

/** A request line longer than this (a duck's text is a few kB) is refused, not buffered. */
export const MAX_LINE = 1 << 20;

/** Splits a stream's chunks into lines; a line past MAX_LINE is an error, never kept. */
export function lineReader(onLine: (line: string) => void, onTooLong: () => void): (chunk: string) => void {
  let buffer = '';
  return (chunk) => {
    buffer += chunk;
    let at: number;
    while ((at = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
      if (line.trim() !== '') onLine(line);
    }
    if (buffer.length > MAX_LINE) {
      buffer = '';
      onTooLong();
    }
  };
}
