/**
 * Flag parsing on node:util parseArgs, turned into UsageErrors with a hint instead of stack
 * traces. Every command declares its flags once; `--help` is added to all of them.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './errors.js';

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
    const msg = err instanceof Error ? err.message.split('\n')[0] ?? String(err) : String(err);
    throw new UsageError(`${command}: ${msg.replace(/^Unknown option/, 'unknown option')}`, `see 'quackd ${command} --help'`);
  }
}

/** Parse a numeric flag, or fail with the flag's name. */
export function numberFlag(name: string, value: string | undefined, opts: { int?: boolean; min?: number } = {}): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || (opts.int === true && !Number.isInteger(n)) || (opts.min !== undefined && n < opts.min)) {
    throw new UsageError(`--${name}: "${value}" is not a valid ${opts.int === true ? 'whole number' : 'number'}${opts.min !== undefined ? ` ≥ ${opts.min}` : ''}`);
  }
  return n;
}
