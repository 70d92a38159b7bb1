/**
 * Refuses memory text that looks like a secret. A robot's memory is rendered into every prompt
 * and exported as plain JSONL, so an API key that slipped into a note would leak to the LLM
 * provider on every run. The check runs on every write path (tool, CLI, MCP, import, edit); the
 * reason it returns names the kind of secret, never the text.
 */
import { redact } from '../secrets.js';

const RULES: readonly { readonly re: RegExp; readonly what: string }[] = [
  { re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/, what: 'a private key' },
  { re: /\bssh-(?:rsa|ed25519|dss) AAAA[A-Za-z0-9+/=]{40,}/, what: 'an SSH key' },
  { re: /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/, what: 'an API key (sk-…)' },
  { re: /\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{16,}/, what: 'a GitHub token' },
  { re: /\bglpat-[A-Za-z0-9_-]{16,}/, what: 'a GitLab token' },
  { re: /\bxox[abprs]-[A-Za-z0-9-]{10,}/, what: 'a Slack token' },
  { re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/, what: 'an AWS access key' },
  { re: /\bAIza[0-9A-Za-z_-]{35}\b/, what: 'a Google API key' },
  { re: /\bhf_[A-Za-z0-9]{30,}/, what: 'a Hugging Face token' },
  { re: /\bnpm_[A-Za-z0-9]{36}\b/, what: 'an npm token' },
  { re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/, what: 'a JSON Web Token' },
  { re: /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/i, what: 'a bearer token' },
  { re: /\b(?:password|passwd|pwd|passphrase)\s*[=:]\s*\S/i, what: 'a password (password=…)' },
  { re: /\b(?:api[_-]?key|apikey|secret|client[_-]?secret|access[_-]?token|auth[_-]?token|token)\s*[=:]\s*\S{6,}/i, what: 'a credential (key=…)' },
  { re: /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:[^\s/@]+@/i, what: 'a URL with a password' },
];

/** A long unbroken run of letters and digits, both present: how generated keys look. */
const HIGH_ENTROPY = /[A-Za-z0-9+/_=-]{32,}/g;

/** Three or more lower-case words joined by hyphens: a duck's name (`fetch-the-ball-from-room-2`), not a key. */
const SLUG = /^[a-z]+(?:-[a-z0-9]+){2,}$/;

function looksGenerated(token: string): boolean {
  if (SLUG.test(token)) return false;
  const hasDigit = /\d/.test(token);
  const hasLower = /[a-z]/.test(token);
  const hasUpper = /[A-Z]/.test(token);
  const kinds = Number(hasDigit) + Number(hasLower) + Number(hasUpper);
  // Hex digests and base64 keys mix at least two kinds; a long plain word does not.
  return kinds >= 2 && hasDigit;
}

/** Why `text` looks like a secret, or undefined when it does not. */
export function secretReason(text: string): string | undefined {
  for (const rule of RULES) if (rule.re.test(text)) return `it looks like ${rule.what}`;
  for (const m of text.matchAll(HIGH_ENTROPY)) if (looksGenerated(m[0])) return 'it looks like a key or token (a long random string)';
  // Keys that a provider registered at start-up (src/secrets.ts), whatever their shape.
  if (redact(text) !== text) return 'it contains a key quackd is using';
  return undefined;
}
