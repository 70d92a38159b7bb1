/**
 * A number a robot's settings take from the config file or from a flag: `baud: 1000000` and
 * `--baud 1000000` (text) mean the same. zod's coerce did that by Number(), which let `true` pass
 * as 1 and `""` as 0, and said "expected number, received NaN" of `baud: fast`; here only text
 * that reads as a number is one, and anything else is refused as what it is, with an example:
 * `expected a number (e.g. 1000000), got "fast"`. Built on zod/mini so the control worker's
 * schemas (src/imu/settings.ts) use it too.
 */
import * as z from '../zod-mini.js';
import { printable } from '../text/printable.js';

export interface NumberRule {
  /** A value that would do, shown in the error: the default, usually. */
  readonly example: number | string;
  /** Whole numbers only. */
  readonly int?: boolean;
  /** Greater than zero. */
  readonly positive?: boolean;
  readonly min?: number;
  readonly max?: number;
}

/** Text that reads as a number, as that number (`"115200"`, `"0x29"`); anything else unchanged, for the number check to refuse. */
function numberText(value: unknown): unknown {
  if (typeof value !== 'string' || value.trim() === '') return value;
  const n = Number(value);
  return Number.isFinite(n) ? n : value;
}

/** A value as the person wrote it, in an error's `got …`. */
export function shownValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (typeof value === 'string') return `"${printable(value)}"`;
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  return printable(String(value));
}

export function numberSetting(rule: NumberRule): z.ZodMiniType<number, unknown> {
  const kind = rule.int === true ? 'a whole number' : 'a number';
  const got = (input: unknown, want: string): string => `expected ${want} (e.g. ${rule.example}), got ${shownValue(input)}`;
  const base = rule.int === true ? z.int({ error: (issue) => got(issue.input, kind) }) : z.number({ error: (issue) => got(issue.input, kind) });
  const checks: z.core.$ZodCheck<number>[] = [];
  if (rule.positive === true) checks.push(z.positive({ error: (issue) => got(issue.input, `${kind} above 0`) }));
  if (rule.min !== undefined) checks.push(z.minimum(rule.min, { error: (issue) => got(issue.input, `${kind} of at least ${rule.min}`) }));
  if (rule.max !== undefined) checks.push(z.maximum(rule.max, { error: (issue) => got(issue.input, `${kind} of at most ${rule.max}`) }));
  return z.pipe(z.transform(numberText), checks.length > 0 ? base.check(...checks) : base);
}

/**
 * zod's own words for a plain number field given something else ("Invalid input: expected number,
 * received string"), said as numberSetting says them, from the value as written; undefined for
 * any other issue.
 */
export function notANumber(issue: z.core.$ZodIssue, written: unknown): string | undefined {
  // A schema's own message (numberSetting's, with its example) is kept: only zod's default is replaced.
  if (issue.code !== 'invalid_type' || (issue.expected !== 'number' && issue.expected !== 'int') || !issue.message.startsWith('Invalid input')) return undefined;
  return `expected ${issue.expected === 'int' ? 'a whole number' : 'a number'}, got ${shownValue(written)}`;
}
