/** Small statistics for bench cases: median and percentiles of samples. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.round((p / 100) * (sorted.length - 1))));
  return sorted[i] ?? Number.NaN;
}

export const median = (samples: readonly number[]): number => percentile(samples, 50);

export const fmt = (n: number, digits = 1): string => n.toFixed(digits);
