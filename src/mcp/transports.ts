/**
 * serve-mcp's two ways to speak MCP: stdio (one connection, ended when the client closes stdin)
 * and Streamable HTTP (a server per MCP session, until a stop signal). Over stdio nothing but MCP
 * goes to stdout. Loaded apart from serve.ts so the SDK loads while the robots' backend opens.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { serveHttp } from './http.js';
import type { ServeMcpOptions } from './serve.js';
import { buildServer, type ServerOptions } from './server.js';

/** What a run stopped now ends with: `stopped by <why>` (the signal's words, else `otherwise`). */
type StopWords = (otherwise: string) => string;

export async function overStdio(server: ServerOptions, o: ServeMcpOptions, why: StopWords): Promise<void> {
  const built = buildServer(server);
  const ended = new Promise<void>((resolve) => {
    o.stdin.once('end', resolve);
    o.stdin.once('close', resolve);
    o.signal.addEventListener('abort', () => resolve(), { once: true });
    built.server.server.onclose = resolve;
  });
  await built.server.connect(new StdioServerTransport(o.stdin, o.stdout));
  await ended;
  await built.close(why('the MCP client closing'));
  await built.server.close();
}

export async function overHttp(server: ServerOptions, http: NonNullable<ServeMcpOptions['http']>, o: ServeMcpOptions, why: StopWords): Promise<void> {
  const serving = await serveHttp({ ...http, connect: (session) => buildServer(server, session) });
  o.stderr.write(`quackd serve-mcp: MCP over HTTP at ${serving.url}${http.token !== undefined ? ' (bearer token required)' : ''}; robots held by ${server.backend.where}\n`);
  await new Promise<void>((resolve) => (o.signal.aborted ? resolve() : o.signal.addEventListener('abort', () => resolve(), { once: true })));
  await serving.close(why('the MCP server stopping'));
}
