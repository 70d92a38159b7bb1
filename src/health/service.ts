/**
 * `service`: whether `quackd serve` runs on this machine, asked over its control socket. When it
 * answers, the check is ok (its pid and uptime) and the service's own lines (each robot's loop,
 * link and battery, its store, the MQTT broker) follow as entries, so a `fail` among them makes
 * `quackd health` exit 1. No service is a warning: a CLI-only machine is not unhealthy.
 */
import { uptime } from '../commands/status.js';
import { RuntimeError } from '../errors.js';
import { openService } from '../service/socket/client.js';
import type { Reply, Request } from '../service/socket/protocol.js';
import { fail, ok, warn, type HealthCheck, type HealthReport } from './check.js';

/** One request's first reply; undefined without a service. Let go of when the runner's deadline passes. */
async function ask(env: NodeJS.ProcessEnv, request: Request, signal: AbortSignal): Promise<Reply | undefined> {
  let first: Reply | undefined;
  const connection = await openService(env, request, (reply) => (first ??= reply));
  if (connection === undefined) return undefined;
  const close = () => connection.close();
  signal.addEventListener('abort', close, { once: true });
  await connection.closed;
  signal.removeEventListener('abort', close);
  return first ?? { type: 'error', kind: 'runtime', message: 'quackd serve closed the connection without an answer' };
}

async function look(env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<HealthReport> {
  let status: Reply | undefined;
  let health: Reply | undefined;
  try {
    [status, health] = await Promise.all([ask(env, { op: 'status' }, signal), ask(env, { op: 'health' }, signal)]);
  } catch (err) {
    // A socket that is not ours to use: the service runs, we cannot ask it.
    if (err instanceof RuntimeError) return warn(err.message);
    throw err;
  }
  if (status === undefined && health === undefined) return warn('not running');
  if (status?.type !== 'status') return fail(`quackd serve does not answer status: ${status?.type === 'error' ? status.message : (status?.type ?? 'no answer')}`);
  const s = status.status.service;
  const running = `running · pid ${s.pid} · up ${uptime(s.uptimeS)} · ${s.socket}`;
  if (health?.type !== 'health') return fail(`${running} · does not answer health: ${health?.type === 'error' ? health.message : (health?.type ?? 'no answer')}`);
  return { ...ok(running), entries: health.lines.map(({ check, status: st, detail }) => ({ check, status: st, detail })) };
}

export const serviceCheck: HealthCheck = {
  name: 'service',
  run: ({ env }, signal) => (env === undefined ? Promise.resolve(warn('not running')) : look(env, signal)),
};
