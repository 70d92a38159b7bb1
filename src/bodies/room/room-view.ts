/**
 * The lookout room through a robot's camera, as a picture: sim2d's renderer with the room's
 * things standing in it (the ball a sphere, the rest upright cylinders of their own colours, none
 * of them the ball's orange), from the robot's eye as the room's own camera model places it (its
 * height, its field of view, the head's yaw and pitch). With `camera: synthetic` a lookout body
 * has these eyes: `snapshot` shows a model the picture, and the colour detector reads it as it
 * reads a real camera's.
 */
import { SyntheticCamera } from '../../camera/synthetic-camera.js';
import { ORANGE, type BallLook } from '../../vision/ball.js';
import type { Lens } from '../../vision/lens.js';
import type { BodyEyes } from '../body.js';
import { BALL_DIAMETER_M } from '../camera-eyes.js';
import { deg } from '../microduck/sim2d/arena.js';
import { renderView, type Rgb, type Standing } from '../microduck/sim2d/view.js';
import type { Camera, Eye } from './camera.js';
import { SOFA_THING, type Thing } from './room.js';

/** Each loose thing's paint: far from orange in hue or saturation, so only the ball is a ball. */
const PAINT: Readonly<Record<string, Rgb>> = { lamp: [236, 232, 214], plant: [52, 140, 64], chair: [116, 64, 140], box: [92, 112, 136] };
const UNPAINTED: Rgb = [128, 128, 128];

/**
 * The room camera's lens: 640 px across its field of view and as tall as its vertical field of
 * view makes it (so what the picture shows is what the room says is in view), at its height,
 * pitched as `eye` is.
 */
export function roomLens(camera: Camera, eye?: Eye): Lens {
  const height = 2 * Math.round((320 * Math.tan(camera.halfVfov)) / Math.tan(camera.halfFov));
  return { width: 640, height, fov_deg: deg(2 * camera.halfFov), mount: { height_m: camera.height, pitch_deg: eye === undefined ? 0 : deg(eye.pitch), ahead_m: 0 } };
}

/** The picture from `eye`. */
export function renderRoomView(camera: Camera, eye: Eye, things: readonly Thing[]): { readonly width: number; readonly height: number; readonly rgb: Uint8Array } {
  const ball = things.find((t) => t.name === 'ball');
  const standing: Standing[] = things.filter((t) => t !== SOFA_THING && t !== ball).map((t) => ({ at: t.at, radius: t.radius, height: t.height, colour: PAINT[t.name] ?? UNPAINTED }));
  // A room without a ball draws its sphere far outside the walls, where no ray reaches.
  return renderView({ ...eye.at, heading: eye.heading }, ball?.at ?? { x: -1e6, y: -1e6 }, roomLens(camera, eye), camera.height, standing);
}

/**
 * A lookout body's eyes: each grab rendered from where `eyeNow` says the lens is, and the
 * detector's lens pitched with the head at the time it is read (so a snapshot's words are
 * measured as the picture was taken).
 */
export function roomEyes(camera: Camera, eyeNow: () => Eye, things: readonly Thing[]): BodyEyes {
  return {
    camera: new SyntheticCamera(() => renderRoomView(camera, eyeNow(), things)),
    get ball(): BallLook {
      return { lens: roomLens(camera, eyeNow()), colour: ORANGE, diameter_m: BALL_DIAMETER_M };
    },
  };
}
