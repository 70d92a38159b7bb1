/**
 * Who may reach serve-mcp over HTTP: loopback is this machine's own; any other address is the
 * network's, and nobody may drive the robots from there without the bearer token. Apart from
 * http.ts so the check runs before the MCP SDK (and anything else) is loaded.
 */
import { UsageError } from '../errors.js';

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Refuses to serve the robots off loopback without a token, in one line. */
export function checkExposure(host: string, token: string | undefined): void {
  if (!isLoopback(host) && (token === undefined || token === '')) {
    throw new UsageError(`serve-mcp: --http ${host} is reachable from other machines, and nobody may drive the robots from there without a bearer token`, 'give --token-file FILE (or QUACKD_MCP_TOKEN), or bind 127.0.0.1');
  }
}
