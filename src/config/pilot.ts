/**
 * The effective pilot settings of a run: flags, then environment, then the config file's
 * `pilot:` section, then built-in defaults. Each value remembers where it came from, so an
 * error can name the flag, variable or file line the user has to change.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { homedir } from 'node:os';
import { UsageError } from '../errors.js';
import { loadConfigFile, type LoadedConfig, type PilotSection } from './file.js';

/** What the command line said; undefined means "not given" (never fill in defaults here). */
export interface PilotFlags {
  /** `fake`, `openai`, `anthropic` (`--provider`). */
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  /** `--base-url`. */
  readonly baseUrl?: string | undefined;
  /** Per-call deadline (`--timeout` seconds × 1000). */
  readonly timeoutMs?: number | undefined;
  /** Extra attempts on 429, 5xx and dropped connections (`--retries`). */
  readonly retries?: number | undefined;
  /** A 0600 file holding the API key (`--key-file`). */
  readonly keyFile?: string | undefined;
}

export interface PilotSettings {
  readonly provider: string;
  readonly model: string | undefined;
  readonly baseUrl: string | undefined;
  readonly timeoutMs: number;
  readonly retries: number;
  /** Absolute path. */
  readonly keyFile: string | undefined;
  /** Whether the model reads pictures (`pilot.images`); undefined: the provider's default. */
  readonly images?: boolean;
  /** The widest picture the model is sent (`pilot.image_width`); undefined: 512 px. */
  readonly imageWidth?: number;
  /** True when the key file was named on the command line: it then beats the API-key variable. */
  readonly keyFileFromFlag: boolean;
  /** Where each value came from, e.g. `--provider`, `QUACKD_MODEL`, `pilot.model in /…/config.yaml`, `default`. */
  readonly sources: Readonly<Record<PilotSetting, string>>;
}

export type PilotSetting = 'provider' | 'model' | 'baseUrl' | 'timeout' | 'retries' | 'keyFile';

export const PILOT_DEFAULTS = { provider: 'fake', timeoutMs: 60_000, retries: 2 } as const;

/** Environment variables, read after flags and before the config file. Keys have their own (OPENAI_API_KEY, …). */
export const PILOT_ENV = {
  provider: 'QUACKD_PROVIDER',
  model: 'QUACKD_MODEL',
  baseUrl: 'QUACKD_BASE_URL',
  timeoutS: 'QUACKD_TIMEOUT_S',
  retries: 'QUACKD_RETRIES',
} as const;

const FLAG = { provider: '--provider', model: '--model', baseUrl: '--base-url' } as const;
const FILE_KEY = { provider: 'provider', model: 'model', baseUrl: 'base_url' } as const;

function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

function envNumber(env: NodeJS.ProcessEnv, name: string, opts: { int: boolean; min: number }): number | undefined {
  const raw = envValue(env, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || (opts.int && !Number.isInteger(n)) || n < opts.min) {
    throw new UsageError(`${name}: "${raw}" is not a valid ${opts.int ? 'whole number' : 'number'} ≥ ${opts.min}`);
  }
  return n;
}

/** `~/x` and paths relative to the config file, as a shell user would expect. */
export function expandPath(path: string, relativeTo: string): string {
  if (path === '~' || path.startsWith('~/')) return resolve(homedir(), path.slice(2));
  return isAbsolute(path) ? path : resolve(relativeTo, path);
}

export function checkBaseUrl(url: string, source: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`${source}: "${url}" is not a URL`, 'e.g. http://localhost:11434/v1');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`${source}: "${url}" is not an http:// or https:// URL`);
  }
  return url.replace(/\/+$/, '');
}

/** The first number given (flag, variable, file: the caller's order), with where it came from; else the default. */
function firstGiven(choices: readonly (readonly [number | undefined, string])[], fallback: number): { value: number; source: string } {
  for (const [value, source] of choices) if (value !== undefined) return { value, source };
  return { value: fallback, source: 'default' };
}

/** `file`: the config as a long-lived process read it at its start (serve), so each run uses that one, not the file as it is now. */
export async function resolvePilotSettings(flags: PilotFlags, env: NodeJS.ProcessEnv, file?: LoadedConfig): Promise<PilotSettings> {
  file ??= await loadConfigFile(env);
  const section: PilotSection = file.config.pilot ?? {};
  const inFile = (key: string): string => `pilot.${key} in ${file.path}`;

  const pick = (field: 'provider' | 'model' | 'baseUrl'): { value: string | undefined; source: string } => {
    const flag = flags[field];
    if (flag !== undefined && flag !== '') return { value: flag, source: FLAG[field] };
    const fromEnv = envValue(env, PILOT_ENV[field]);
    if (fromEnv !== undefined) return { value: fromEnv, source: PILOT_ENV[field] };
    const fromFile = section[FILE_KEY[field]];
    if (fromFile !== undefined) return { value: fromFile, source: inFile(FILE_KEY[field]) };
    return { value: field === 'provider' ? PILOT_DEFAULTS.provider : undefined, source: 'default' };
  };
  const provider = pick('provider');
  const model = pick('model');
  const baseUrl = pick('baseUrl');

  const timeoutS = envNumber(env, PILOT_ENV.timeoutS, { int: false, min: 0.001 });
  const timeout = firstGiven(
    [
      [flags.timeoutMs, '--timeout'],
      [timeoutS !== undefined ? timeoutS * 1000 : undefined, PILOT_ENV.timeoutS],
      [section.timeout_s !== undefined ? section.timeout_s * 1000 : undefined, inFile('timeout_s')],
    ],
    PILOT_DEFAULTS.timeoutMs,
  );
  const retries = firstGiven([[flags.retries, '--retries'], [envNumber(env, PILOT_ENV.retries, { int: true, min: 0 }), PILOT_ENV.retries], [section.retries, inFile('retries')]], PILOT_DEFAULTS.retries);

  const keyFlag = flags.keyFile !== undefined && flags.keyFile !== '';
  const keyFile = keyFlag ? resolve(flags.keyFile!) : section.key_file !== undefined ? expandPath(section.key_file, dirname(file.path)) : undefined;
  const keyFileSource = keyFlag ? '--key-file' : section.key_file !== undefined ? inFile('key_file') : 'default';

  return {
    provider: provider.value ?? PILOT_DEFAULTS.provider,
    model: model.value,
    baseUrl: baseUrl.value !== undefined ? checkBaseUrl(baseUrl.value, baseUrl.source) : undefined,
    timeoutMs: Math.ceil(timeout.value),
    retries: retries.value,
    keyFile,
    keyFileFromFlag: keyFlag,
    ...(section.images !== undefined ? { images: section.images } : {}),
    ...(section.image_width !== undefined ? { imageWidth: section.image_width } : {}),
    sources: { provider: provider.source, model: model.source, baseUrl: baseUrl.source, timeout: timeout.source, retries: retries.source, keyFile: keyFileSource },
  };
}
