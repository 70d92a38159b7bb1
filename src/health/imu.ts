/**
 * `imu`: the robot's trunk IMU asked as a run would find it (a BNO055: answering, its mode and
 * calibration sys/gyro/acc/mag, a warning while the gyro is uncalibrated), or that its body has
 * none to ask. Reads only.
 */
import { forRobot, ok, type HealthCheck } from './check.js';

export const imuCheck: HealthCheck = {
  name: 'imu',
  run: (ctx) =>
    forRobot(ctx, async (robot) => {
      const check = robot.entry.checkImu;
      if (check === undefined) return ok(`none to ask: ${robot.key} has no IMU of its own`);
      return check(robot.settings);
    }),
};
