/**
 * `daemon`, for a robot behind Pollen's Reachy Mini daemon (reachy-mini:daemon): reachable at its
 * base_url or not, its version, state and motors' mode, in one line. Reads only.
 */
import { forRobot, type HealthCheck } from './check.js';

export const daemonCheck: HealthCheck = {
  name: 'daemon',
  applies: (ctx) => ctx.setup.ok && ctx.setup.robot.entry.checkDaemon !== undefined,
  run: (ctx, signal) =>
    forRobot(ctx, async (robot) => {
      const check = robot.entry.checkDaemon;
      return check === undefined ? { status: 'ok', detail: `${robot.key} has no daemon` } : check(robot.settings, signal);
    }),
};
