/** MCAP's log times are nanoseconds since the epoch; Foxglove's messages say `{ sec, nsec }`. */

export interface FoxgloveTime {
  readonly sec: number;
  readonly nsec: number;
}

/** Epoch milliseconds (fractions kept) to nanoseconds, exact past 2^53. */
export function nanos(epochMs: number): bigint {
  const whole = Math.floor(epochMs);
  return BigInt(whole) * 1_000_000n + BigInt(Math.round((epochMs - whole) * 1e6));
}

export function foxgloveTime(epochMs: number): FoxgloveTime {
  const sec = Math.floor(epochMs / 1000);
  return { sec, nsec: Math.min(999_999_999, Math.round((epochMs - sec * 1000) * 1e6)) };
}
