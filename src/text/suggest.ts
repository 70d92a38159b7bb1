/** "Did you mean …?" for misspelt names: the closest candidate within a small edit distance. */

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** The candidate nearest to `name` by edit distance, however far (the first of equals). */
export function nearest(name: string, candidates: readonly string[], within = Infinity): string | undefined {
  let best: string | undefined;
  let bestDistance = within;
  for (const c of candidates) {
    const d = editDistance(name.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/** The closest candidate within a small edit distance: a likely typo of it. */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  return nearest(name, candidates, Math.max(2, Math.floor(name.length / 3)) + 1);
}

/** ` (did you mean "kick"?)` or ''. */
export function didYouMean(name: string, candidates: readonly string[]): string {
  const c = closest(name, candidates);
  return c === undefined ? '' : ` (did you mean "${c}"?)`;
}
