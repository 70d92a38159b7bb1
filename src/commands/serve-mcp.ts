/**
 * `quackd serve-mcp`: the fleet as MCP tools for desktop LLM clients, over stdio (Claude Desktop,
 * or a Pi reached as `ssh pi quackd serve-mcp`) or Streamable HTTP. Parses the flags and hands
 * over to src/mcp/serve.ts, imported only now: the MCP SDK costs ~200 ms and 25 MB to load.
 * Over stdio nothing but MCP may reach stdout: errors and logs go to stderr.
 */
import { numberFlag, parseFlags } from '../cli/args.js';
import { accessToken, defaultAddress, listenAddress, type ListenDefaults } from '../cli/listen.js';
import { UsageError } from '../cli/errors.js';
import type { Invocation } from '../cli/invocation.js';
import { onStopSignals } from '../cli/signals.js';
import { RUN_HOLD_S, SESSION_IDLE_S } from '../mcp/http-limits.js';
import type { Command } from './command.js';

const flags = {
  http: { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  'session-idle': { type: 'string' },
  duck: { type: 'string' },
  robot: { type: 'string' },
  'no-memory': { type: 'boolean' },
  'memory-dir': { type: 'string' },
} as const;

/** Where `--http` alone listens: 3825 is DUCK on a phone's keypad. */
const HTTP_HOST = '127.0.0.1';
const HTTP_PORT = 3825;

const help = `usage: quackd serve-mcp [--http [ADDR:PORT]] [--duck NAME|PATH] [--robot NAME] [--no-memory | --memory-dir DIR]

Serves the robots as MCP tools to a desktop LLM client (Claude Desktop, any MCP host), with the
same memory and safety contract as 'quackd run': robot_list, robot_recall, robot_remember,
robot_forget, robot_observe, robot_verb (one verb under the server's duck), robot_run (a whole
duck with quackd's pilot), and each robot's memory and the latest transcripts as resources.
When a 'quackd serve' is running, everything goes through it (it holds the hardware).

Over stdio (the default) stdout carries MCP alone; logs go to stderr. It ends when the client
closes stdin, or on Ctrl-C/SIGTERM (runs under way stop, their bodies stop).

options:
  --http [ADDR:PORT]   Streamable HTTP at http://ADDR:PORT/mcp instead of stdio (default
                       ${HTTP_HOST}:${HTTP_PORT}); any address but loopback needs a bearer token
  --token-file FILE    the bearer token, in a 0600 file (or QUACKD_MCP_TOKEN; --token TOKEN
                       works too, but other users see it in ps)
  --session-idle S     close an HTTP session with no request open for S seconds (default
                       ${SESSION_IDLE_S}); its runs stop after ${RUN_HOLD_S} s of it (or S). A client that hangs up
                       without closing its session frees its robot at once
  --duck NAME|PATH     what robot_verb may do: that duck's verbs, budgets and gates (default: a
                       built-in one: the body's verbs, as --goal has them, 6 steps, 12 calls,
                       300 s, and every verb that moves behind a person's yes on a real robot)
  --robot NAME         look after this robot only (a fleet name or a body key)
  --no-memory          no memory tools or resource; runs neither read nor write memory
  --memory-dir DIR     robot memory (default ~/.quackd/memory, or QUACKD_MEMORY_DIR)

A confirmation gate is asked of the person at the client when it supports MCP elicitation;
otherwise it is denied and nothing moves.

examples:
  quackd serve-mcp
  ssh pi quackd serve-mcp
  quackd serve-mcp --http                          # http://127.0.0.1:${HTTP_PORT}/mcp
  quackd serve-mcp --http 0.0.0.0:${HTTP_PORT} --token-file ~/.quackd/mcp-token`;

const HTTP: ListenDefaults = { command: 'serve-mcp', flag: 'http', host: HTTP_HOST, port: HTTP_PORT };

/** `127.0.0.1:3825`, `[::1]:3825`, `0.0.0.0` or `3825`. */
export function httpAddress(value: string): { host: string; port: number } {
  return listenAddress(value, HTTP);
}

/** The bearer token: --token, --token-file, else QUACKD_MCP_TOKEN; registered so no log line shows it. */
function bearerToken(f: { token?: string; 'token-file'?: string }, env: NodeJS.ProcessEnv): string | undefined {
  if (f.token !== undefined && f['token-file'] !== undefined) throw new UsageError('serve-mcp: give --token or --token-file, not both');
  return accessToken('serve-mcp', { ...(f.token !== undefined ? { value: f.token } : {}), ...(f['token-file'] !== undefined ? { file: f['token-file'] } : {}), ...(env['QUACKD_MCP_TOKEN'] !== undefined ? { env: env['QUACKD_MCP_TOKEN'] } : {}) }, '~/.quackd/mcp-token');
}

export const serveMcpCommand: Command = {
  name: 'serve-mcp',
  help,
  async run(argv: readonly string[], { io, env, stdin }: Invocation): Promise<number> {
    const { flags: f, positionals } = parseFlags('serve-mcp', defaultAddress(argv, HTTP), flags);
    if (positionals.length > 0) throw new UsageError(`serve-mcp: takes no arguments (got "${positionals[0] ?? ''}")`, "see 'quackd serve-mcp --help'");
    if (f['no-memory'] === true && f['memory-dir'] !== undefined) throw new UsageError('serve-mcp: --memory-dir and --no-memory contradict each other');
    const token = bearerToken(f, env);
    if (token !== undefined && f.http === undefined) throw new UsageError('serve-mcp: a bearer token is for --http; over stdio the client is the process that started this one');
    const idleS = numberFlag('session-idle', f['session-idle'], { min: 1 });
    if (idleS !== undefined && f.http === undefined) throw new UsageError('serve-mcp: --session-idle is for --http; over stdio the session ends when the client closes stdin');
    const http = f.http !== undefined ? { ...httpAddress(f.http), ...(token !== undefined ? { token } : {}), ...(idleS !== undefined ? { idleS } : {}) } : undefined;
    const { serveMcp } = await import('../mcp/serve.js');
    const stop = onStopSignals();
    try {
      await serveMcp({
        env,
        stdin,
        stdout: io.out,
        stderr: io.err,
        ...(http !== undefined ? { http } : {}),
        ...(f.duck !== undefined ? { duck: f.duck } : {}),
        noMemory: f['no-memory'] === true,
        ...(f['memory-dir'] !== undefined ? { memoryDir: f['memory-dir'] } : {}),
        ...(f.robot !== undefined ? { robot: f.robot } : {}),
        signal: stop.signal,
      });
      return stop.exitCode() ?? 0;
    } finally {
      stop.dispose();
    }
  },
};
