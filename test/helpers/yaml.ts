/** Hostile YAML for parser tests. */

/**
 * "Billion laughs": each level is nine aliases of the one before, so `levels` levels expand to
 * 9^levels strings from a few hundred bytes. Top-level keys `l0` … `l<levels-1>`, one a line.
 */
export function aliasBomb(levels = 9): string {
  const lines = ['l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
  for (let i = 1; i < levels; i++) lines.push(`l${i}: &l${i} [${Array.from({ length: 9 }, () => `*l${i - 1}`).join(', ')}]`);
  return lines.join('\n');
}
