/**
 * serve-mcp over Streamable HTTP, at `/mcp`. Bound to 127.0.0.1 unless told otherwise; any other
 * address needs a bearer token, or the server refuses to start. With a token, a request without
 * it (or with another) is answered 401 before the MCP layer sees it. On loopback the Host header
 * must name the loopback (a web page cannot reach the robots through DNS rebinding). Each MCP
 * session gets its own server (its own robot_verb sessions), ended when the client closes it, or
 * when it has had no request open for the idle time: a client that crashed or lost its network
 * never says goodbye, and its session would otherwise hold a robot's run and its memory until the
 * server stops. A connected client keeps its event stream (a GET) open, so it never looks idle;
 * one that comes back after expiry gets 404 and, as the MCP spec asks, starts a new session.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { RuntimeError } from '../errors.js';
import { logger } from '../log.js';
import { checkExposure, isLoopback } from './exposure.js';
import { MAX_BODY, SESSION_IDLE_S } from './http-limits.js';
import type { BuiltServer } from './server.js';

const PATH = '/mcp';

export interface HttpOptions {
  readonly host: string;
  readonly port: number;
  /** The bearer token every request must carry; required off loopback. */
  readonly token?: string;
  /** Seconds a session may have no request open before it is closed (default SESSION_IDLE_S). */
  readonly idleS?: number;
  /** A server for each new MCP session. */
  readonly connect: () => BuiltServer;
}

export interface HttpServing {
  /** `http://127.0.0.1:3825/mcp` */
  readonly url: string;
  close(why: string): Promise<void>;
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** The request carries `Authorization: Bearer <token>` (compared in constant time). */
function authorized(req: IncomingMessage, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return m?.[1] !== undefined && timingSafeEqual(digest(m[1]), digest(token));
}

function jsonError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: status === 401 ? -32001 : -32000, message }, id: null }));
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new RangeError('request body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reject(new SyntaxError('the body is not JSON'));
      }
    });
    req.on('error', reject);
  });
}

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly built: BuiltServer;
  /** Requests of this session still open (a tool call's stream, the client's event stream). */
  open: number;
  /** When the last of them ended (performance.now()). */
  quietSince: number;
}

export async function serveHttp(options: HttpOptions): Promise<HttpServing> {
  checkExposure(options.host, options.token);
  const log = logger('mcp');
  const sessions = new Map<string, Session>();
  let port = options.port;
  const loopback = isLoopback(options.host);
  const hostAllowed = (host: string | undefined): boolean => host !== undefined && [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${options.host}:${port}`].includes(host.toLowerCase());

  const open = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let body: unknown;
    try {
      body = await readJson(req);
    } catch (err) {
      return jsonError(res, err instanceof RangeError ? 413 : 400, err instanceof Error ? err.message : 'bad request');
    }
    const initializes = Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
    if (!initializes) return jsonError(res, 400, 'no MCP session: send initialize first (or the mcp-session-id header)');
    const built = options.connect();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { transport, built, open: 0, quietSince: performance.now() }),
      // Awaited before the DELETE is answered: a client that said goodbye finds the robot free.
      onsessionclosed: async (id) => {
        sessions.delete(id);
        await built.close('the MCP client closing');
      },
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined) sessions.delete(id);
      void built.close('the MCP client closing');
    };
    await built.server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== PATH) return jsonError(res, 404, `not found: the MCP endpoint is ${PATH}`);
    if (loopback && !hostAllowed(req.headers.host)) return jsonError(res, 403, 'forbidden: this server answers only requests addressed to the loopback');
    if (options.token !== undefined && !authorized(req, options.token)) return jsonError(res, 401, 'unauthorized: a bearer token is required', { 'www-authenticate': 'Bearer realm="quackd"' });
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = sessions.get(id);
      if (session === undefined) return jsonError(res, 404, 'no such MCP session (it ended, or the server restarted): initialize again');
      session.open += 1;
      res.once('close', () => {
        session.open -= 1;
        session.quietSince = performance.now();
      });
      return session.transport.handleRequest(req, res);
    }
    if (req.method === 'POST') return open(req, res);
    return jsonError(res, 400, 'no MCP session: send initialize first (or the mcp-session-id header)');
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.error({ err }, 'MCP over HTTP: a request failed');
      jsonError(res, 500, 'internal error in quackd');
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', (err: NodeJS.ErrnoException) => reject(new RuntimeError(`serve-mcp: cannot listen on ${options.host}:${options.port} (${err.code ?? err.message})`, err.code === 'EADDRINUSE' ? 'another program has that port: pick another with --http ADDR:PORT' : undefined)));
    http.listen(options.port, options.host, () => {
      http.removeAllListeners('error');
      http.on('error', (err) => log.error({ err }, 'MCP over HTTP: the server failed'));
      resolve();
    });
  });
  port = (http.address() as AddressInfo).port;

  const idleS = options.idleS ?? SESSION_IDLE_S;
  const end = async (id: string, s: Session, why: string): Promise<void> => {
    sessions.delete(id);
    await s.built.close(why);
    await s.transport.close().catch(() => undefined);
  };
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const [id, s] of sessions) {
      if (s.open > 0 || now - s.quietSince < idleS * 1000) continue;
      log.info({ session: id, idle_s: idleS }, 'MCP over HTTP: a session with no request for the idle time is closed');
      void end(id, s, `the MCP client going quiet for ${idleS} s`).catch((err: unknown) => log.error({ err }, 'MCP over HTTP: closing an idle session failed'));
    }
  }, Math.min(idleS * 500, 60_000));
  sweep.unref();
  const shown = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${shown}:${port}${PATH}`,
    close: async (why) => {
      clearInterval(sweep);
      await Promise.all([...sessions].map(([id, s]) => end(id, s, why)));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
