/**
 * Terminal output for people: colour and symbols only on a TTY without NO_COLOR; plain text for
 * pipes and scripts. Commands print through an Output so tests can capture it. Every line passes
 * through redact(): a key a model echoed back never reaches the screen or a script's pipe.
 */
import type { Writable } from 'node:stream';
import { redact } from '../secrets.js';

export { printable } from '../text/printable.js';

/** `0.03 MB`, `12.4 MB`: what a file takes on disk, as prune and list commands say it. */
export const megabytes = (bytes: number): string => `${(bytes / 1_000_000).toFixed(bytes < 100_000 ? 2 : 1)} MB`;

export interface Output {
  readonly out: Writable;
  readonly err: Writable;
  readonly color: boolean;
  /** stdout is a terminal: transient progress lines may be drawn and erased. */
  readonly interactive: boolean;
  /** The terminal's width in columns, read afresh (it may be resized); undefined for a pipe. */
  width(): number | undefined;
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

/** Colour follows `env` (NO_COLOR, TERM=dumb) and whether `out` is a terminal. */
export function createOutput(out: Writable, err: Writable, env: NodeJS.ProcessEnv): Output {
  const isTty = (out as { isTTY?: boolean }).isTTY === true;
  const color = isTty && !env['NO_COLOR'] && env['TERM'] !== 'dumb';
  return {
    out,
    err,
    color,
    interactive: isTty,
    width: () => (isTty ? (out as { columns?: number }).columns : undefined),
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
