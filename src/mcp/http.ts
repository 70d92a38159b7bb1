/**
 * serve-mcp over Streamable HTTP, at `/mcp`. Bound to 127.0.0.1 unless told otherwise; any other
 * address needs a bearer token, or the server refuses to start. With a token, a request without
 * it (or with another) is answered 401 before the MCP layer sees it. On loopback the Host header
 * must name the loopback (a web page cannot reach the robots through DNS rebinding).
 *
 * Each MCP session gets its own server (its own robot_verb sessions). It ends when the client
 * says goodbye (DELETE), or at once when the client hangs up: most clients never send the DELETE
 * (the SDK's `client.close()`, the MCP Inspector's CLI after its one request, a process that
 * exited) but drop their streams, so a stream the server had not finished that closes, leaving
 * none open, is the client gone; its runs stop, as a terminal's hang-up stops a run over the
 * control socket. A client whose network merely cut a stream finds its session gone (404) and,
 * as the MCP spec asks, starts a new one: a robot should stop when the line to whoever drives it
 * goes dead. A client that opens no event stream (a script of single POSTs) gives no such sign:
 * after `holdS` with no request open its runs stop (the next call says how the last session
 * ended and starts a new one), and after the idle time the session itself is closed. A connected
 * SDK client keeps its event stream (a GET) open, so it never looks quiet.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { RuntimeError } from '../errors.js';
import { logger } from '../log.js';
import { checkExposure, isLoopback } from './exposure.js';
import { MAX_BODY, RUN_HOLD_S, SESSION_IDLE_S } from './http-limits.js';
import type { BuiltServer } from './server.js';

const PATH = '/mcp';

export interface HttpOptions {
  readonly host: string;
  readonly port: number;
  /** The bearer token every request must carry; required off loopback. */
  readonly token?: string;
  /** Seconds a session may have no request open before it is closed (default SESSION_IDLE_S). */
  readonly idleS?: number;
  /** Seconds a session may have no request open before its runs stop and its robots are free (default RUN_HOLD_S). */
  readonly holdS?: number;
  /** A server for each new MCP session; `session` says its id once the client initialized. */
  readonly connect: (session: () => string | undefined) => BuiltServer;
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
      if (size <= MAX_BODY) chunks.push(c);
      else {
        // Read to its end and dropped, so the client is there to be told 413; past eight times the
        // limit it is no client worth telling, and its connection is cut.
        chunks.length = 0;
        if (size > 8 * MAX_BODY) req.destroy();
      }
    });
    req.on('end', () => {
      if (size > MAX_BODY) return reject(new RangeError(`request body too large: over ${MAX_BODY} bytes`));
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reject(new SyntaxError('the body is not JSON'));
      }
    });
    req.on('error', reject);
    // Cut off before its end (by the client, or above): settled all the same, nothing left waiting.
    req.on('close', () => reject(new RangeError('the request was cut off before its end')));
  });
}

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly built: BuiltServer;
  /** Requests of this session still open (a tool call's stream, the client's event stream). */
  open: number;
  /** When the last of them ended (performance.now()). */
  quietSince: number;
  /** Its runs were stopped for quiet, and no request has come since. */
  letGo?: boolean;
  /** Its POSTs still streaming (a tool call waits for its answer on its own). */
  readonly calls: Set<ServerResponse>;
}

/** How long a session's DELETE waits for the calls its close ended (a run stopped) to be answered. */
const ANSWER_GRACE_MS = 2000;

/** Resolves once every one of `calls` has ended, or after `ms`. */
function answered(calls: ReadonlySet<ServerResponse>, ms: number): Promise<void> {
  const open = [...calls].filter((r) => !r.writableEnded);
  if (open.length === 0) return Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([Promise.all(open.map((r) => new Promise<void>((resolve) => r.once('close', resolve)))).then(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}

export async function serveHttp(options: HttpOptions): Promise<HttpServing> {
  checkExposure(options.host, options.token);
  const log = logger('mcp');
  const sessions = new Map<string, Session>();
  /** Closes a session: its runs stop (awaited), then its transport. */
  const end = async (id: string, s: Session, why: string): Promise<void> => {
    sessions.delete(id);
    await s.built.close(why);
    await s.transport.close().catch(() => undefined);
  };
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
    let sessionId: string | undefined;
    const built = options.connect(() => sessionId);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessionId = id;
        sessions.set(id, { transport, built, open: 0, quietSince: performance.now(), calls: new Set() });
      },
      // Awaited before the DELETE is answered: a client that said goodbye finds the robot free, and
      // a call of its own the close ended (its run stopped) is answered before its stream is closed.
      onsessionclosed: async (id) => {
        const calls = sessions.get(id)?.calls;
        sessions.delete(id);
        await built.close('the MCP client closing');
        if (calls !== undefined) await answered(calls, ANSWER_GRACE_MS);
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
      session.letGo = false;
      if (req.method === 'POST') session.calls.add(res);
      res.once('close', () => {
        session.calls.delete(res);
        session.open -= 1;
        session.quietSince = performance.now();
        // A stream we had not finished, closed by the client, and none left: it has gone.
        if (!res.writableFinished && session.open === 0 && sessions.get(id) === session) {
          log.info({ session: id.slice(0, 8) }, 'MCP over HTTP: the client hung up without closing its session; it is closed');
          void end(id, session, 'the MCP client leaving').catch((err: unknown) => log.error({ err }, 'MCP over HTTP: closing a session failed'));
        }
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
  const holdS = Math.min(options.holdS ?? RUN_HOLD_S, idleS);
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const [id, s] of sessions) {
      if (s.open > 0) continue;
      const quietS = (now - s.quietSince) / 1000;
      if (quietS >= idleS) {
        log.info({ session: id.slice(0, 8), idle_s: idleS }, 'MCP over HTTP: a session with no request for the idle time is closed');
        void end(id, s, `the MCP client going quiet for ${idleS} s`).catch((err: unknown) => log.error({ err }, 'MCP over HTTP: closing an idle session failed'));
      } else if (quietS >= holdS && s.letGo !== true) {
        s.letGo = true;
        void s.built.close(`the MCP client going quiet for ${holdS} s`).catch((err: unknown) => log.error({ err }, 'MCP over HTTP: stopping a quiet session\'s runs failed'));
      }
    }
  }, Math.min(holdS * 250, 15_000));
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
