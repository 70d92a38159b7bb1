/**
 * API keys come from two places only: the provider's environment variable (OPENAI_API_KEY,
 * ANTHROPIC_API_KEY) or a key file that nobody but its owner can read. Every key loaded is
 * registered with the redactor before anything else happens, and no message here ever
 * contains one, only where it came from.
 */
import { readFileSync, statSync } from 'node:fs';
import { InputError } from '../errors.js';
import { registerSecret } from '../secrets.js';

export const KEY_ENV = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY' } as const;
export type KeyedProvider = keyof typeof KEY_ENV;

export interface ApiKey {
  readonly key: string | undefined;
  /** `OPENAI_API_KEY`, `key file /…`, or `none`. */
  readonly source: string;
}

/** Reads a key file, refusing one that group or others can read (or write). */
export function readKeyFile(path: string): string {
  let mode: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new InputError(`key file ${path} is not a file`);
    mode = st.mode & 0o777;
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`key file ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if ((mode & 0o077) !== 0) {
    throw new InputError(`key file ${path} is open to other users (mode ${mode.toString(8).padStart(4, '0')}); it must be 0600`, `chmod 600 ${path}`);
  }
  const key = readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (key === undefined) throw new InputError(`key file ${path} is empty`);
  registerSecret(key);
  return key;
}

/**
 * The key for `provider`: a key file named on the command line, then the environment
 * variable, then the config file's key file.
 */
export function loadApiKey(
  provider: KeyedProvider,
  keyFile: string | undefined,
  keyFileFromFlag: boolean,
  env: NodeJS.ProcessEnv,
): ApiKey {
  // Both providers' variables are masked even when unused: a model or a log may still echo them.
  for (const name of Object.values(KEY_ENV)) registerSecret(env[name]?.trim());
  if (keyFile !== undefined && keyFileFromFlag) return { key: readKeyFile(keyFile), source: `key file ${keyFile}` };
  const fromEnv = env[KEY_ENV[provider]]?.trim();
  if (fromEnv !== undefined && fromEnv !== '') return { key: fromEnv, source: KEY_ENV[provider] };
  if (keyFile !== undefined) return { key: readKeyFile(keyFile), source: `key file ${keyFile}` };
  return { key: undefined, source: 'none' };
}
