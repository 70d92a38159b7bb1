/**
 * Flag parsing on node:util parseArgs, turned into UsageErrors with a hint instead of stack
 * traces. Every command declares its flags once; `--help` is added to all of them.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './errors.js';
import { didYouMean } from '../text/suggest.js';

export type FlagSpec = NonNullable<ParseArgsConfig['options']>;

export interface Parsed<F extends FlagSpec> {
  readonly flags: ReturnType<typeof parseArgs<{ options: F & { help: { type: 'boolean' } }; allowPositionals: true; strict: true }>>['values'];
  readonly positionals: string[];
  readonly help: boolean;
}

export function parseFlags<F extends FlagSpec>(command: string, argv: readonly string[], options: F): Parsed<F> {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options: { ...options, help: { type: 'boolean', short: 'h' } } as F & { help: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
    return { flags: values, positionals, help: (values as { help?: boolean }).help === true };
  } catch (err) {
    throw new UsageError(`${command}: ${explain(err instanceof Error ? err.message : String(err), Object.keys(options))}`, `see 'quackd ${command} --help'`);
  }
}

/** node:util's parse errors, said plainly, with the closest flag when one was misspelt. */
function explain(message: string, known: readonly string[]): string {
  const unknown = /^Unknown option '(-{1,2}[^']*)'/.exec(message)?.[1];
  if (unknown !== undefined) return `unknown option ${unknown}${didYouMean(unknown.replace(/^-+/, ''), known).replace(/"([^"]+)"/, '"--$1"')}`;
  const ambiguous = /^Option '(-{1,2}[^']*?)(?: <value>)?' argument is ambiguous/.exec(message)?.[1];
  if (ambiguous !== undefined) return `${ambiguous} needs a value that does not start with "-" (use ${ambiguous}=VALUE)`;
  const missing = /^Option '(-{1,2}[^']*?)(?: <value>)?' argument missing/.exec(message)?.[1];
  if (missing !== undefined) return `${missing} needs a value`;
  return message.split('\n')[0] ?? message;
}

/** Parse a numeric flag, or fail with the flag's name. */
export function numberFlag(name: string, value: string | undefined, opts: { int?: boolean; min?: number; max?: number } = {}): number | undefined {
  if (value === undefined) return undefined;
  // Plain decimals only: `0x10`, `1e3` and `Infinity` are numbers to JavaScript, not to a person.
  const n = /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(value.trim()) ? Number(value) : Number.NaN;
  const bad = !Number.isFinite(n) || (opts.int === true && !Number.isInteger(n)) || (opts.min !== undefined && n < opts.min) || (opts.max !== undefined && n > opts.max);
  if (bad) {
    const range = opts.min !== undefined && opts.max !== undefined ? ` from ${opts.min} to ${opts.max}` : opts.min !== undefined ? ` ≥ ${opts.min}` : opts.max !== undefined ? ` ≤ ${opts.max}` : '';
    throw new UsageError(`--${name}: "${value}" is not a ${opts.int === true ? 'whole number' : 'number'}${range}`);
  }
  return n;
}

/**
 * A command with one sub-command and a port to talk to (`bridge probe`, `bus scan`): refuses a
 * missing or unknown sub-command, anything after it, and a missing --port, each with `tryHint`
 * (and the serial ports this machine has, for the port). Returns the port.
 */
export async function soleSubCommandPort(command: string, sub: string, positionals: readonly string[], port: string | undefined, tryHint: string, portHint: () => Promise<string>): Promise<string> {
  const [given, ...extra] = positionals;
  if (given === undefined) throw new UsageError(`${command}: missing sub-command`, tryHint);
  if (given !== sub) {
    const hint = didYouMean(given, [sub]);
    throw new UsageError(`${command}: unknown sub-command "${given}"${hint}`, hint === '' ? tryHint : undefined);
  }
  if (extra.length > 0) throw new UsageError(`${command} ${sub}: unexpected argument "${extra.join(' ')}"`, tryHint);
  if (port === undefined || port === '') throw new UsageError(`${command} ${sub}: --port is required`, `e.g. --port /dev/serial/by-id/...; ${await portHint()}`);
  return port;
}
