/**
 * Whether the daemon's backend (the part that drives the motors, which its dashboard or
 * `POST /api/daemon/start` starts) runs, from its `GET /api/daemon/status`: a daemon that answers
 * with its backend stopped drives nothing. The same line refuses a run's start and, under
 * `quackd serve`, shows the idle robot offline (reach-watch.ts), so both say it alike.
 */
import type { DaemonStatus } from './wire.js';

/** daemon.py's states other than running, as a person says them. */
const NOT_RUNNING: Record<Exclude<DaemonStatus['state'], 'running'>, string> = {
  not_initialized: 'not started',
  starting: 'still starting',
  stopping: 'stopping',
  stopped: 'stopped',
  error: 'in error',
};

/**
 * Undefined while the backend runs, else one line: what state it is in, the daemon's error, and
 * what brings it back (daemon.py's start refuses only a running backend, so it also clears an error).
 */
export function backendDown(status: DaemonStatus, baseUrl: string): string | undefined {
  if (status.state === 'running') return undefined;
  const error = status.error ? ` (${status.error})` : '';
  const hint = status.state === 'starting' ? 'a run can start once it runs' : 'start it from its dashboard, or POST /api/daemon/start?wake_up=false';
  return `the Reachy Mini daemon at ${baseUrl} answers, but its backend is ${NOT_RUNNING[status.state]}${error}: ${hint}`;
}
