/**
 * Terminal output for people: colour and symbols only on a TTY without NO_COLOR; plain text for
 * pipes and scripts. Commands print through an Output so tests can capture it. Every line passes
 * through redact(): a key a model echoed back never reaches the screen or a script's pipe.
 */
import type { Writable } from 'node:stream';
import { redact } from '../secrets.js';

/**
 * Text a model or a device wrote, made safe to print: control characters (escape sequences,
 * carriage returns, newlines) are shown as `\xNN` so such text can neither forge a line nor
 * drive the terminal.
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

export interface Output {
  readonly out: Writable;
  readonly err: Writable;
  readonly color: boolean;
  /** stdout is a terminal: transient progress lines may be drawn and erased. */
  readonly interactive: boolean;
  line(text?: string): void;
  dim(text: string): string;
  bold(text: string): string;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  readonly ok: string;
  readonly fail: string;
}

const wrap = (on: boolean, open: number, close: number) => (s: string) =>
  on ? `\u001b[${open}m${s}\u001b[${close}m` : s;

export function createOutput(out: Writable = process.stdout, err: Writable = process.stderr): Output {
  const isTty = (out as { isTTY?: boolean }).isTTY === true;
  const color = isTty && !process.env['NO_COLOR'] && process.env['TERM'] !== 'dumb';
  return {
    out,
    err,
    color,
    interactive: isTty,
    line: (text = '') => void out.write(`${redact(text)}\n`),
    dim: wrap(color, 2, 22),
    bold: wrap(color, 1, 22),
    green: wrap(color, 32, 39),
    red: wrap(color, 31, 39),
    yellow: wrap(color, 33, 39),
    ok: color ? '✔' : 'OK',
    fail: color ? '✘' : 'FAIL',
  };
}
