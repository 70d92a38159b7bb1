/**
 * Fitting lines to the terminal: a line wider than the terminal is wrapped between words, the
 * continuation indented under the column it belongs to. Into a pipe (no width) lines stay whole,
 * so grep and scripts see one record a line. A word wider than the line is never cut: it
 * overflows on a line of its own.
 */

/** SGR colour codes take no room on screen. */
const SGR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** Text without its colour codes. */
export function stripColor(text: string): string {
  return text.replace(SGR, '');
}

/** Columns a string takes on screen (code points, colour codes excluded). */
export function visibleWidth(text: string): number {
  return [...stripColor(text)].length;
}

/**
 * `text` with line breaks between words so that no line is wider than `width`; each continuation
 * starts with `indent` spaces. `width` undefined (a pipe) returns the text as it is.
 */
export function fitLine(text: string, width: number | undefined, indent = 0): string {
  if (width === undefined || width <= 0 || visibleWidth(text) <= width) return text;
  const pad = ' '.repeat(Math.min(indent, Math.max(0, width - 1)));
  const out: string[] = [];
  let line = '';
  let used = 0;
  let hasWord = false;
  let gap = '';
  // Words and the runs of spaces between them; leading spaces and padding are kept as written.
  for (const token of text.split(/( +)/)) {
    if (token === '') continue;
    if (token.startsWith(' ')) {
      gap += token;
      continue;
    }
    const w = visibleWidth(token);
    if (hasWord && used + gap.length + w > width) {
      out.push(line);
      line = pad + token;
      used = pad.length + w;
    } else {
      line += gap + token;
      used += gap.length + w;
    }
    hasWord = true;
    gap = '';
  }
  out.push(line);
  return out.join('\n');
}
