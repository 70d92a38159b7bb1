/**
 * The loop's fixed grid: slot n is due at t0 + n × period. After a tick the loop runs the next
 * slot, or, when it is late by more than a period, the latest slot already due: the ones in
 * between are skipped and counted, never run back to back (a burst of stale ticks would send
 * several targets in a row computed from old readings).
 */
export function nextSlot(t0Ms: number, periodMs: number, slot: number, nowMs: number): { readonly slot: number; readonly missed: number } {
  const next = slot + 1;
  const latestDue = Math.floor((nowMs - t0Ms) / periodMs);
  if (latestDue <= next) return { slot: next, missed: 0 };
  return { slot: latestDue, missed: latestDue - next };
}
