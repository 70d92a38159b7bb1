/**
 * Joint targets held within their range, and the words a result uses when one was not: a body
 * clamps what it cannot reach (as Reachy Mini's SDK does) and says so, rather than refusing or
 * pretending it got there.
 */

export interface Clamped {
  /** Degrees, within the range. */
  readonly value: number;
  /** `pitch 60° held at 40° (the head's limit)`, when the target was beyond the range. */
  readonly note?: string;
}

const degrees = (n: number): string => `${Math.round(n)}°`;

export function clampTo(what: string, target: number, lo: number, hi: number, why: string): Clamped {
  const value = Math.min(hi, Math.max(lo, target));
  // A target a hair beyond the range is no news worth a line.
  if (Math.abs(value - target) < 0.5) return { value };
  return { value, note: `${what} ${degrees(target)} held at ${degrees(value)} (${why})` };
}

/** The notes of those that were clamped, as the tail of a result line: ` — clamped: …`, or ''. */
export function clampNotes(clamped: readonly Clamped[]): string {
  const notes = clamped.flatMap((c) => (c.note === undefined ? [] : [c.note]));
  return notes.length === 0 ? '' : ` — clamped: ${notes.join('; ')}`;
}
