/**
 * `quackd serve-mcp`, composed: find where the robots are held (a running `quackd serve`, whose
 * control socket then carries everything, else this process's own runtime), settle the robot it
 * looks after and the duck robot_verb runs under, then speak MCP over stdio or Streamable HTTP
 * until the client goes or a signal comes. Over stdio nothing but MCP goes to stdout.
 */
import type { Readable, Writable } from 'node:stream';
import { findBody, robotCan } from '../bodies/index.js';
import { loadConfigFile } from '../config/file.js';
import { recordingConfig } from '../recording/runtime-config.js';
import { memoryDir, userDucksDir } from '../config/paths.js';
import { runtimeEmbeddings } from '../memory/embedding-settings.js';
import { InputError, RuntimeError, UsageError } from '../errors.js';
import { logger } from '../log.js';
import { RobotSettingsError, UnknownRobot, robotLabel } from '../runtime/fleet.js';
import type { RobotStatus } from '../service/api.js';
import { askService, replyError } from '../service/socket/client.js';
import { DECLARE_VERBS } from '../verbs/registry.js';
import type { Backend } from './backend.js';
import { checkSessionDuck, defaultDuck, namedDuck, type SessionDuck } from './duck.js';
import { checkExposure } from './exposure.js';
import { openLocalBackend } from './local-backend.js';
import { RobotScope } from './robots.js';
import type { ServerOptions } from './server.js';
import { ServiceBackend } from './service-backend.js';

export interface ServeMcpOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly stdin: Readable;
  readonly stdout: Writable;
  /** Where the few lines for people go (the HTTP address); never stdout. */
  readonly stderr: Writable;
  /** Streamable HTTP instead of stdio. */
  readonly http?: { readonly host: string; readonly port: number; readonly token?: string; readonly idleS?: number; readonly holdS?: number };
  /** `--duck`: robot_verb's allowlist, budgets and gates; else the conservative built-in one. */
  readonly duck?: string;
  readonly noMemory: boolean;
  readonly memoryDir?: string;
  /** `--robot`: the one robot this server looks after. */
  readonly robot?: string;
  /** Aborted by the first stop signal (its reason: `stopped by SIGTERM`). */
  readonly signal: AbortSignal;
}

/** `SIGTERM` from `stopped by SIGTERM`: the words a run's outcome ends with. */
function why(signal: AbortSignal, otherwise: string): string {
  const reason: unknown = signal.reason;
  return signal.aborted && reason instanceof Error ? reason.message.replace(/^stopped by /, '') : otherwise;
}

/** The running service when one answers, else this process's own runtime. */
async function openBackend(o: ServeMcpOptions): Promise<Backend> {
  const reply = await askService(o.env, { op: 'status' });
  if (reply !== undefined) {
    if (reply.type === 'error') throw replyError(reply);
    if (reply.type !== 'status') throw new RuntimeError(`quackd serve answered its status with "${reply.type}"`);
    const { pid, socket } = reply.status.service;
    if (o.memoryDir !== undefined) throw new UsageError(`serve-mcp: --memory-dir is for a server that holds the robots itself, and quackd serve (pid ${pid}) keeps its robots' memory`, 'leave --memory-dir out, or stop the service');
    return new ServiceBackend(o.env, `quackd serve (pid ${pid}) at ${socket}`);
  }
  const file = await loadConfigFile(o.env);
  const timeout = file.config.service?.gate_timeout_s;
  return openLocalBackend({
    env: o.env,
    ...(file.config.robots !== undefined ? { robots: file.config.robots } : {}),
    ...(o.noMemory ? {} : { memoryDir: memoryDir(o.memoryDir, o.env), ...runtimeEmbeddings(file.config, o.env) }),
    ...(timeout !== undefined ? { gateTimeoutMs: timeout * 1000 } : {}),
    ...recordingConfig(file.config, o.env),
  });
}

/** The robots, their session ducks (checked against each body now, not at the first verb) and robot_verb's verbs. */
async function settle(backend: Backend, o: ServeMcpOptions): Promise<ServerOptions> {
  let only: string | undefined;
  try {
    only = o.robot !== undefined ? (await backend.status(o.robot)).robot : undefined;
  } catch (err) {
    if (err instanceof UnknownRobot || err instanceof RobotSettingsError) throw new InputError(`serve-mcp: --robot: ${err.message}`, "'quackd bodies' and 'quackd config check' list them");
    throw err;
  }
  const robots = new RobotScope(backend, only);
  const named = o.duck !== undefined ? namedDuck(o.duck, userDucksDir(o.env)) : undefined;
  const bodyOf = (r: RobotStatus) => {
    const body = findBody(r.key);
    if (body === undefined) throw new InputError(`${r.robot}: unknown body "${r.key}"`);
    return body;
  };
  // Each robot as its settings make it (asked of whoever holds it): a duck with a camera is offered search_scan.
  const listed = await robots.list();
  const cans = new Map(await Promise.all(listed.map(async (r) => [r.robot, await backend.can(r.robot)] as const)));
  const canOf = (r: RobotStatus) => cans.get(r.robot) ?? robotCan(bodyOf(r), {});
  const duckFor = (r: RobotStatus): SessionDuck => named ?? defaultDuck(bodyOf(r), canOf(r));
  const verbs = listed.flatMap((r) => checkSessionDuck(duckFor(r), bodyOf(r), canOf(r)).verbs);
  const sessionVerbs = [...new Set(verbs.filter((v) => v !== 'remember')), ...DECLARE_VERBS];
  return { backend, robots, memory: !o.noMemory, duckFor, sessionVerbs };
}

export async function serveMcp(o: ServeMcpOptions): Promise<void> {
  // Before anything opens: an exposed server without a token never starts.
  if (o.http !== undefined) checkExposure(o.http.host, o.http.token);
  // The SDK (~200 ms to load) loads while the backend opens (the store's writer thread starts meanwhile).
  const speaking = import('./transports.js');
  speaking.catch(() => undefined);
  const backend = await openBackend(o);
  try {
    const server = await settle(backend, o);
    // A key that means a robot of the fleet says which one, as a run's header does.
    const [only] = o.robot !== undefined ? await server.robots.list() : [];
    if (only !== undefined) o.stderr.write(`quackd serve-mcp: looking after ${robotLabel(only.robot, only.key)} only\n`);
    const { overHttp, overStdio } = await speaking;
    logger('mcp').info({ where: backend.where, transport: o.http !== undefined ? 'http' : 'stdio', memory: server.memory }, 'serve-mcp ready');
    const words = (otherwise: string): string => why(o.signal, otherwise);
    if (o.http !== undefined) await overHttp(server, o.http, o, words);
    else await overStdio(server, o, words);
  } finally {
    await backend.close(why(o.signal, 'the MCP server stopping'));
  }
}
