/**
 * `camera`: the robot's camera asked for one frame as a run would ask (its own process, its
 * deadline), then let go; a robot without a `camera:` setting has no line. Reads only.
 */
import { CameraSettingsSchema } from '../camera/settings.js';
import { fail, forRobot, ok, type HealthCheck } from './check.js';

export const cameraCheck: HealthCheck = {
  name: 'camera',
  applies: (ctx) => ctx.setup.ok && ctx.setup.robot.settings['camera'] !== undefined,
  run: (ctx, signal) =>
    forRobot(ctx, async (robot) => {
      const setting = robot.settings['camera'];
      if (setting === 'synthetic') return ok(`synthetic: ${robot.key} renders what its camera sees`);
      const parsed = CameraSettingsSchema.safeParse(setting);
      if (!parsed.success) return fail(`camera: ${parsed.error.issues[0]?.message ?? 'not a camera setting'}`);
      const holder = await robot.entry.cameraHolder?.(robot.settings, signal);
      if (holder !== undefined) return ok(`${parsed.data.device}: ${holder}`);
      const { openCamera } = await import('../camera/open-camera.js');
      const camera = await openCamera(parsed.data);
      const letGo = (): void => void camera.close();
      signal.addEventListener('abort', letGo, { once: true });
      try {
        return await camera.health();
      } finally {
        signal.removeEventListener('abort', letGo);
        await camera.close();
      }
    }),
};
