/** When something happened, for people: `14:03:07` today, `2026-11-30 14:03:07` another day (local time). */
export function timeOfDay(at: Date, now = new Date()): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  const time = `${p(at.getHours())}:${p(at.getMinutes())}:${p(at.getSeconds())}`;
  return at.toDateString() === now.toDateString() ? time : `${at.getFullYear()}-${p(at.getMonth() + 1)}-${p(at.getDate())} ${time}`;
}
