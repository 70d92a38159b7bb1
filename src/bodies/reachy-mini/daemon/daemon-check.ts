/**
 * What `quackd health` says of a reachy-mini:daemon robot: whether its daemon answers at its
 * base_url, the daemon's version and state, simulated or real, and its motors' mode. Reads only.
 */
import { backendDown } from './backend-state.js';
import { DaemonClient, DaemonError } from './client.js';
import { daemonSettings } from './settings.js';
import { daemonStatus, mediaStatus, parseAnswer } from './wire.js';

/**
 * Whether the daemon's media pipeline holds the camera now, in words, so `health` does not take
 * it from under a WebRTC viewer (a run takes it, and gives it back: daemon-camera.ts). A daemon
 * that cannot say (down, too old to release media) leaves the camera to be tried as it is.
 */
export async function daemonCameraHolder(settings: Readonly<Record<string, unknown>>, signal?: AbortSignal): Promise<string | undefined> {
  const s = daemonSettings.parse(settings);
  try {
    const media = parseAnswer(mediaStatus, await new DaemonClient(s.base_url, s.timeout_s * 1000).get('/api/media/status', signal), 'GET /api/media/status');
    return media.available ? `held by the daemon at ${s.base_url} (its media pipeline); a run asks it to release the camera at its first look, and gives it back` : undefined;
  } catch (err) {
    if (err instanceof DaemonError) return undefined;
    throw err;
  }
}

/**
 * Whether the robot can be driven through the daemon at base_url now (GET /api/daemon/status, as
 * a run's start asks first): undefined, or its one line (`… is not answering (ECONNREFUSED): …`,
 * `… did not answer … within 5 s`, `… answers, but its backend is stopped: start it …`). A daemon
 * that answers with its backend stopped moves nothing, so it is out of reach as much as one down.
 */
export async function daemonReach(settings: Readonly<Record<string, unknown>>, signal?: AbortSignal): Promise<string | undefined> {
  const s = daemonSettings.parse(settings);
  try {
    const status = parseAnswer(daemonStatus, await new DaemonClient(s.base_url, s.timeout_s * 1000).get('/api/daemon/status', signal), 'GET /api/daemon/status');
    return backendDown(status, s.base_url);
  } catch (err) {
    if (err instanceof DaemonError && err.kind !== 'stopped') return err.message;
    throw err;
  }
}

export async function checkDaemon(settings: Readonly<Record<string, unknown>>, signal?: AbortSignal): Promise<{ readonly status: 'ok' | 'warn' | 'fail'; readonly detail: string }> {
  const s = daemonSettings.parse(settings);
  try {
    const st = parseAnswer(daemonStatus, await new DaemonClient(s.base_url, s.timeout_s * 1000).get('/api/daemon/status', signal), 'GET /api/daemon/status');
    const kind = st.simulation_enabled === true ? 'simulated (MuJoCo)' : st.mockup_sim_enabled === true ? 'simulated (mockup)' : 'a robot';
    const detail = `${s.base_url}: daemon ${st.version ?? '(version not given)'}, ${st.state}, ${kind} "${st.robot_name}", motors ${st.backend_status?.motor_control_mode ?? 'unknown'}${st.error ? `; error: ${st.error}` : ''}`;
    return { status: st.state === 'running' ? 'ok' : 'fail', detail };
  } catch (err) {
    if (err instanceof DaemonError) return { status: 'fail', detail: err.message };
    throw err;
  }
}
