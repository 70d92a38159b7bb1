/**
 * What `memory edit` showed the person, kept so that writing the edit back changes only what they
 * changed: per entry id, a short fingerprint of what a person edits (kind, text, tags, topic).
 * Write-back compares it with the store at that moment, so an entry written since (a run, another
 * robot) is neither overwritten with the older text nor removed, and an entry added since was
 * never shown and is left alone. A kept edit file carries it in one line of its own.
 */
import { createHash } from 'node:crypto';
import type { Entry } from './entry.js';

/** Entry id → fingerprint of what the editor showed of it. */
export type Shown = Readonly<Record<string, string>>;

/** The key of the kept file's line that says what the edit was shown (never an entry: it has no text). */
const MARK = 'quackd_edit_shown';

export function said(e: { readonly kind: Entry['kind']; readonly text: string; readonly tags: readonly string[]; readonly topic?: string | undefined }): string {
  return createHash('sha256')
    .update(JSON.stringify([e.kind, e.text, e.tags, e.topic ?? null]))
    .digest('base64url')
    .slice(0, 12);
}

export function shownOf(entries: readonly Entry[]): Shown {
  return Object.fromEntries(entries.map((e) => [e.id, said(e)]));
}

/** The line a kept edit file ends with. */
export function shownLine(body: string, shown: Shown): string {
  return `${JSON.stringify({ [MARK]: { body, shown } })}\n`;
}

/**
 * A kept edit file's text without its shown line (left blank, so line numbers hold), and what
 * that line says; `shown` is undefined for a file without one (kept by an older quackd, or written by hand).
 */
export function splitKept(text: string): { readonly text: string; readonly body?: string; readonly shown?: Shown } {
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const raw = lines[i] ?? '';
    if (!raw.includes(MARK)) continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      continue;
    }
    const m = (value as Record<string, unknown> | null)?.[MARK] as { body?: unknown; shown?: unknown } | undefined;
    if (typeof m !== 'object' || m === null || typeof m.body !== 'string' || typeof m.shown !== 'object' || m.shown === null) continue;
    if (!Object.values(m.shown).every((v) => typeof v === 'string')) continue;
    lines[i] = '';
    return { text: lines.join('\n'), body: m.body, shown: m.shown as Shown };
  }
  return { text };
}
