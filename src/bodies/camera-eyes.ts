/**
 * A real body's eyes from its `camera:` setting: the camera its device names (opened lazily: no
 * process starts until the first grab) and the colour detector's look through that lens, at the
 * size the setting asks for. The ball is the usual orange toy, BALL_DIAMETER_M across.
 */
import { CameraError } from '../camera/camera.js';
import { openCamera } from '../camera/open-camera.js';
import type { CameraSettings } from '../camera/settings.js';
import { ORANGE } from '../vision/ball.js';
import { BodyError, type BodyEyes, type BodyKey } from './body.js';

/** The toy ball quackd looks for, as sim2d's (12 cm). */
export const BALL_DIAMETER_M = 0.12;

/** A camera the robot cannot have (`synthetic` on a real one) is the body's error, in one line. */
export async function cameraEyes(key: BodyKey, settings: CameraSettings): Promise<BodyEyes> {
  let camera;
  try {
    camera = await openCamera(settings);
  } catch (error) {
    if (error instanceof CameraError) throw new BodyError(`${key}: ${error.message}`);
    throw error;
  }
  const lens = { width: settings.width, height: settings.height, fov_deg: settings.fov_deg, mount: settings.mount };
  return { camera, ball: { lens, colour: ORANGE, diameter_m: BALL_DIAMETER_M } };
}
