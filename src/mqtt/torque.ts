/**
 * The torque command over MQTT (`{"torque": true}` on a robot's `set`, `bridge/request/torque`):
 * the service's one-step torque run (src/service/torque.ts). On a real body `on` waits for a
 * person's yes (Home Assistant's gate buttons, `bridge/request/confirm`, `quackd confirm`) up to
 * the service's gate timeout. The answer is what the body read back, or the run's reason why not.
 */
import { InputError, RuntimeError } from '../errors.js';
import type { RunBy } from '../runtime/holder.js';
import type { ServiceApi } from '../service/api.js';

export async function switchTorque(api: ServiceApi, robot: string, on: boolean, by?: RunBy): Promise<Readonly<Record<string, unknown>>> {
  if (api.torque === undefined) throw new InputError('this service cannot switch torque');
  const run = await api.torque(robot, on, undefined, by);
  const [report, torque] = await Promise.all([run.done, run.torque]);
  if (report.outcome.status !== 'success' || torque === undefined) throw new RuntimeError(`torque ${on ? 'on' : 'off'}: ${report.outcome.status} — ${report.outcome.reason}`);
  return { torque, runId: run.runId, transcript: run.transcriptPath };
}
