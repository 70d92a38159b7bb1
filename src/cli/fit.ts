/**
 * Fitting lines to the terminal: a line wider than the terminal is wrapped between words, the
 * continuation indented under the column it belongs to; a table's last column goes under its row
 * rather than be squeezed below a readable width, and its other columns shrink (cut short with
 * `…`) only when a row does not fit even so. A word is never broken across lines: one wider than
 * its line is cut short with `…` (the terminal would break it otherwise). Into a pipe (no width)
 * lines stay whole, so grep and scripts see one record a line.
 */

/** SGR colour codes take no room on screen. */
const SGR_SOURCE = `${String.fromCharCode(27)}\\[[0-9;]*m`;
const SGR = new RegExp(SGR_SOURCE, 'g');
/** Splits a text into its colour codes (odd indexes) and the text between them. */
const SGR_PARTS = new RegExp(`(${SGR_SOURCE})`);

/** The fewest columns a wrapped text gets beside its row before it goes under it instead. */
const MIN_FLOW = 20;
/** The indent of a continuation when its column leaves too little room, and of a column put under its row. */
const SHORT_INDENT = 4;
const GAP = 2;

/** Text without its colour codes. */
export function stripColor(text: string): string {
  return text.replace(SGR, '');
}

/** Columns a string takes on screen (code points, colour codes excluded). */
export function visibleWidth(text: string): number {
  return [...stripColor(text)].length;
}

/** `text` in at most `width` columns: cut short with `…`; its colour codes are kept, so a colour opened is closed. */
export function ellipsize(text: string, width: number): string {
  if (visibleWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const [i, part] of text.split(SGR_PARTS).entries()) {
    if (i % 2 === 1) {
      out += part;
      continue;
    }
    for (const ch of part) {
      if (used < width - 1) out += ch;
      else if (used === width - 1) out += '…';
      else break;
      used += 1;
    }
  }
  return out;
}

/** `text` padded with spaces to `width` columns (colour codes take none). */
function padTo(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - visibleWidth(text)));
}

/**
 * The lines of `text` broken between words: the first at most `first` columns wide, the others
 * `rest`. Spaces between words on one line are kept as written (a row's padding), and so are the
 * leading ones; a word wider than its line is cut short.
 */
function wrapWords(text: string, first: number, rest: number): string[] {
  const out: string[] = [];
  let line = '';
  let used = 0;
  let room = first;
  let hasWord = false;
  let gap = '';
  for (const token of text.split(/( +)/)) {
    if (token === '') continue;
    if (token.startsWith(' ')) {
      gap += token;
      continue;
    }
    const w = visibleWidth(token);
    if (!hasWord || used + gap.length + w <= room) {
      const word = ellipsize(token, Math.max(1, room - used - gap.length));
      line += gap + word;
      used += gap.length + visibleWidth(word);
    } else {
      out.push(line);
      room = rest;
      line = ellipsize(token, rest);
      used = visibleWidth(line);
    }
    hasWord = true;
    gap = '';
  }
  out.push(line);
  return out;
}

/** The indent of a continuation: under its column while that leaves room for some words. */
function hangingIndent(width: number, indent: number): number {
  return width - indent >= MIN_FLOW ? indent : Math.max(0, Math.min(indent, SHORT_INDENT, width - 1));
}

/**
 * `text` with line breaks between words so that no line is wider than `width`; each continuation
 * starts with `indent` spaces (fewer when that column leaves too little room). `width` undefined
 * (a pipe) returns the text as it is.
 */
export function fitLine(text: string, width: number | undefined, indent = 0): string {
  if (width === undefined || width <= 0 || visibleWidth(text) <= width) return text;
  const pad = hangingIndent(width, indent);
  return wrapWords(text, width, width - pad)
    .map((l, i) => (i === 0 ? l : ' '.repeat(pad) + l))
    .join('\n');
}

/** `text` on one line of at most `width` columns (cut short with `…`); whole into a pipe. */
export function oneLine(text: string, width: number | undefined): string {
  return width === undefined || width <= 0 ? text : ellipsize(text, width);
}

export interface Column {
  /**
   * Cut short with `…`, down to this many columns, when a row would not fit otherwise; absent:
   * never cut. For the last column: the fewest it gets beside its row before it goes under it (20).
   */
  readonly min?: number;
  /** Colour for the cell, applied after it is fitted (colour codes take no room). */
  readonly paint?: (text: string) => string;
}

/** Column widths from `natural`, the widest cut first, until they add up to at most `budget` (or none can give more). */
function shrink(natural: readonly number[], columns: readonly Column[], budget: number): number[] {
  const widths = [...natural];
  let total = widths.reduce((a, b) => a + b, 0);
  while (total > budget) {
    const slack = widths.map((w, i) => w - Math.min(w, columns[i]?.min ?? w));
    const most = Math.max(0, ...slack);
    if (most === 0) break;
    widths[slack.indexOf(most)]! -= 1;
    total -= 1;
  }
  return widths;
}

/**
 * Rows as aligned columns, two spaces apart, as printable lines. The last column flows: wrapped
 * between words in the room the others leave; when that is fewer than its `min` (20) columns, it
 * goes on the lines under its row, indented, and the other columns that may be cut (`min`) shrink
 * as far as their row needs to fit. Cells are plain text (`paint` colours them once fitted). Into a pipe
 * (`width` undefined) each row is one whole line.
 */
export function fitTable(rows: readonly (readonly string[])[], columns: readonly Column[], width: number | undefined): string[] {
  const fixed = columns.length - 1;
  const natural = columns.slice(0, fixed).map((_, i) => Math.max(0, ...rows.map((r) => visibleWidth(r[i] ?? ''))));
  const flowWidest = Math.max(0, ...rows.map((r) => visibleWidth(r[fixed] ?? '')));
  const paint = (i: number, text: string): string => (text === '' ? text : (columns[i]?.paint ?? ((t: string) => t))(text));
  const lead = (widths: readonly number[], r: readonly string[]): string => widths.map((w, i) => paint(i, padTo(ellipsize(r[i] ?? '', w), w))).join(' '.repeat(GAP));
  if (width === undefined || width <= 0) return rows.map((r) => `${lead(natural, r)}${' '.repeat(GAP)}${paint(fixed, r[fixed] ?? '')}`.trimEnd());
  const indent = natural.reduce((a, b) => a + b, 0) + GAP * fixed;
  if (width - indent >= Math.min(columns[fixed]?.min ?? MIN_FLOW, flowWidest)) {
    return rows.flatMap((r) => {
      const flow = wrapWords(r[fixed] ?? '', width - indent, width - indent).map((l) => paint(fixed, l));
      return [`${lead(natural, r)}${' '.repeat(GAP)}${flow[0] ?? ''}`.trimEnd(), ...flow.slice(1).map((l) => ' '.repeat(indent) + l)];
    });
  }
  // Too narrow for the last column beside the others: it goes under its row, and the others
  // shrink only if they still do not fit.
  const budget = width - GAP * (fixed - 1);
  const shrunk = shrink(natural, columns, budget);
  // Cut only where cutting makes the row fit: a row that wraps anyway keeps its words whole.
  const above = shrunk.reduce((a, b) => a + b, 0) <= budget ? shrunk : natural;
  const under = hangingIndent(width, SHORT_INDENT);
  return rows.flatMap((r) => {
    const head = fitLine(lead(above, r).trimEnd(), width, GAP).split('\n');
    const text = r[fixed] ?? '';
    const flow = text === '' ? [] : wrapWords(text, width - under, width - under).map((l) => ' '.repeat(under) + paint(fixed, l));
    return [...head, ...flow];
  });
}
