/** How long something has been up, as status lines say it: `42 s`, `12 min`, `3 h 12 min`. */
export function uptime(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  const h = Math.floor(seconds / 3600);
  return `${h} h ${Math.floor((seconds % 3600) / 60)} min`;
}
