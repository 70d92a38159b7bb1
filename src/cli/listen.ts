/**
 * Where a server of quackd listens and who may reach it, as flags say: `--http [ADDR:PORT]`
 * (serve-mcp), `--foxglove [ADDR:PORT]` (serve). A flag that may come without a value means its
 * default address then; a token comes from a flag, a 0600 file or the environment, at least 16
 * characters, and is registered so no log line shows it.
 */
import { readKeyFile } from '../config/api-key.js';
import { registerSecret } from '../secrets.js';
import { numberFlag } from './args.js';
import { UsageError } from './errors.js';

export interface ListenDefaults {
  /** `serve-mcp`, for the error's first word. */
  readonly command: string;
  readonly flag: string;
  readonly host: string;
  readonly port: number;
}

/** `--flag` with no value (the last word, or another flag next) becomes `--flag=HOST:PORT`. */
export function defaultAddress(argv: readonly string[], d: ListenDefaults): string[] {
  return argv.map((a, i) => (a === `--${d.flag}` && (argv[i + 1] === undefined || argv[i + 1]?.startsWith('-') === true) ? `--${d.flag}=${d.host}:${d.port}` : a));
}

/** `127.0.0.1:3825`, `[::1]:3825`, `0.0.0.0` or `3825`. */
export function listenAddress(value: string, d: ListenDefaults): { host: string; port: number } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(value) ?? /^([^:[\]]*)(?::(\d+))?$/.exec(value);
  const digitsOnly = /^\d+$/.test(value);
  const host = digitsOnly ? d.host : m?.[1] || d.host;
  const port = digitsOnly ? value : m?.[2];
  if (m === null && !digitsOnly) throw new UsageError(`${d.command}: --${d.flag} "${value}" is not ADDR:PORT`, `e.g. --${d.flag} ${d.host}:${d.port}`);
  return { host, port: numberFlag(d.flag, port, { int: true, min: 0, max: 65_535 }) ?? d.port };
}

/** The token a flag, a file or a variable gives (the first that does), or undefined. */
export function accessToken(command: string, given: { readonly value?: string; readonly file?: string; readonly env?: string }, example: string): string | undefined {
  const token = given.value ?? (given.file !== undefined ? readKeyFile(given.file) : given.env);
  const trimmed = token?.trim();
  if (trimmed === undefined || trimmed === '') return undefined;
  if (trimmed.length < 16) throw new UsageError(`${command}: the token is too short to guard the robots (at least 16 characters)`, `e.g. openssl rand -hex 24 > ${example}`);
  registerSecret(trimmed);
  return trimmed;
}
