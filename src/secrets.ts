/**
 * Keeps API keys out of transcripts and logs. Providers register the keys they load; every
 * transcript line and log line passes through redact() on its way out. Well-known key shapes are
 * masked too, in case a model echoes one back.
 */
const known = new Set<string>();

const PATTERNS: readonly RegExp[] = [
  /sk-ant-[A-Za-z0-9_-]{10,}/g,
  /sk-[A-Za-z0-9_-]{16,}/g,
  /\b(?:ghp|gho|github_pat|xox[abp])_[A-Za-z0-9_]{16,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
];

export function registerSecret(value: string | undefined): void {
  if (value !== undefined && value.length >= 8) known.add(value);
}

export function redact(text: string): string {
  let out = text;
  for (const s of known) if (out.includes(s)) out = out.split(s).join('[redacted]');
  for (const p of PATTERNS) out = out.replace(p, '[redacted]');
  return out;
}
