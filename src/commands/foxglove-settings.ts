/**
 * Where the live Foxglove server listens and whether it asks for a token, as `quackd serve`
 * resolves them (the flags over the config file's `foxglove:`, QUACKD_FOXGLOVE_TOKEN last), and
 * the one line `quackd config check` shows of them. One resolution for both, so the check says
 * what serve would do.
 */
import { accessToken, listenAddress, type ListenDefaults } from '../cli/listen.js';
import { isLoopback } from '../mcp/exposure.js';
import { FOXGLOVE_HOST, FOXGLOVE_PORT, type FoxgloveSection } from '../foxglove/config.js';

export const FOXGLOVE_LISTEN: ListenDefaults = { command: 'serve', flag: 'foxglove', host: FOXGLOVE_HOST, port: FOXGLOVE_PORT };

export interface FoxgloveFlags {
  readonly listen?: string;
  readonly tokenFile?: string;
}

export interface FoxgloveSettings {
  readonly host: string;
  readonly port: number;
  readonly token?: string;
  /** Where the token came from: `token_file FILE`, `--foxglove-token-file FILE`, `QUACKD_FOXGLOVE_TOKEN`. */
  readonly tokenFrom?: string;
}

/** The live server `quackd serve` starts, or undefined when neither a flag nor the config asks for one (the flag wins). */
export function foxgloveSettings(flags: FoxgloveFlags, section: FoxgloveSection | undefined, env: NodeJS.ProcessEnv): FoxgloveSettings | undefined {
  const listen = flags.listen ?? (section !== false && section !== undefined ? (section.listen ?? `${FOXGLOVE_HOST}:${FOXGLOVE_PORT}`) : undefined);
  if (listen === undefined) return undefined;
  const file = flags.tokenFile ?? (section !== false ? section?.token_file : undefined);
  const fromEnv = env['QUACKD_FOXGLOVE_TOKEN'];
  const token = accessToken('serve', { ...(file !== undefined ? { file } : {}), ...(fromEnv !== undefined ? { env: fromEnv } : {}) }, '~/.quackd/foxglove-token');
  const tokenFrom = token === undefined ? undefined : file !== undefined ? `${flags.tokenFile !== undefined ? '--foxglove-token-file' : 'token_file'} ${file}` : 'QUACKD_FOXGLOVE_TOKEN';
  return { ...listenAddress(listen, FOXGLOVE_LISTEN), ...(token !== undefined ? { token } : {}), ...(tokenFrom !== undefined ? { tokenFrom } : {}) };
}

/** `quackd config check`'s foxglove row: the address and whether a token is asked, or off; a problem serve would stop on. */
export function foxgloveSummary(section: FoxgloveSection | undefined, env: NodeJS.ProcessEnv): { readonly value: string; readonly problem?: string; readonly settings?: { host: string; port: number; token: boolean } } {
  let s: FoxgloveSettings | undefined;
  try {
    s = foxgloveSettings({}, section, env);
  } catch (err) {
    return { value: 'on with quackd serve, but its settings are wrong', problem: (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '' };
  }
  if (s === undefined) return { value: `off (quackd serve --foxglove serves ws://${FOXGLOVE_HOST}:${FOXGLOVE_PORT})` };
  const url = `ws://${s.host.includes(':') ? `[${s.host}]` : s.host}:${s.port}`;
  const settings = { host: s.host, port: s.port, token: s.token !== undefined };
  if (s.token !== undefined) return { value: `${url} with quackd serve · token required (${s.tokenFrom ?? 'given'})`, settings };
  if (isLoopback(s.host)) return { value: `${url} with quackd serve · no token: loopback, this machine only`, settings };
  return { value: `${url} with quackd serve · no token`, problem: `${s.host} is reachable from other machines and no token is given: quackd serve would refuse to start (give foxglove.token_file or QUACKD_FOXGLOVE_TOKEN, or listen on 127.0.0.1)`, settings };
}
