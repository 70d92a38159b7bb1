/**
 * Terminal output for people: colour and symbols only on a TTY without NO_COLOR; plain text for
 * pipes and scripts. Commands print through an Output so tests can capture it.
 */
import type { Writable } from 'node:stream';

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
    line: (text = '') => void out.write(`${text}\n`),
    dim: wrap(color, 2, 22),
    bold: wrap(color, 1, 22),
    green: wrap(color, 32, 39),
    red: wrap(color, 31, 39),
    yellow: wrap(color, 33, 39),
    ok: color ? '✔' : 'OK',
    fail: color ? '✘' : 'FAIL',
  };
}
