/**
 * `service`: whether `quackd serve` runs on this machine, asked over its control socket. When it
 * answers, the check is ok (its pid and uptime) and the service's own lines (each robot's loop,
 * link and battery, its store, the MQTT broker) follow as entries, so a `fail` among them makes
 * `quackd health` exit 1. No service is a warning: a CLI-only machine is not unhealthy.
 */
import { RuntimeError } from '../errors.js';
import { askService } from '../service/socket/client.js';
import type { Reply } from '../service/socket/protocol.js';
import { uptime } from '../text/uptime.js';
import { fail, ok, warn, type HealthCheck, type HealthReport } from './check.js';

async function look(env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<HealthReport> {
  let status: Reply | undefined;
  let health: Reply | undefined;
  try {
    [status, health] = await Promise.all([askService(env, { op: 'status' }, signal), askService(env, { op: 'health' }, signal)]);
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
