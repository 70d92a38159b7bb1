/**
 * The twin's head camera as a camera (`camera: synthetic`): what the lens sees of sim2d's room
 * from where the MuJoCo head camera is now, and the colour detector's reading of it in place of
 * the simulator's own answer. The lens is a wide one (90°, as a Raspberry Pi wide camera is)
 * pitched 30° down: level, a camera 0.25 m up sees the floor only beyond 0.4 m and never a ball
 * being lined up at the feet. It is rendered where the head really is (its height and the trunk's
 * sway), and the detector reads it with the lens where the head is (lookFrom()), as a duck knows
 * it from its trunk IMU and neck joints: the nominal mount put a ball at the feet 5-11 cm too far.
 */
import type { CameraFrame } from '../../../camera/camera.js';
import { ORANGE, type BallLook, type BallSighting } from '../../../vision/ball.js';
import type { Lens } from '../../../vision/lens.js';
import { BALL_RADIUS } from '../sim2d/arena.js';
import { renderView } from '../sim2d/view.js';
import type { TwinWorld } from './control-plant.js';

/** The head camera's lens: bearings and distances from the lens itself (ahead_m 0), as the twin's answers always were. */
export const TWIN_LENS: Lens = { width: 640, height: 480, fov_deg: 90, mount: { height_m: 0.25, pitch_deg: 30, ahead_m: 0 } };
export const TWIN_BALL_LOOK: BallLook = { lens: TWIN_LENS, colour: ORANGE, diameter_m: 2 * BALL_RADIUS };

/** The frame the head camera makes of `w`: a camera looking at the sky or the floor (a duck on its back) sees a grey nothing. */
export function renderTwinView(w: TwinWorld): Omit<CameraFrame, 'at'> {
  const cam = w.camera;
  if (cam === null) return { width: TWIN_LENS.width, height: TWIN_LENS.height, rgb: new Uint8Array(TWIN_LENS.width * TWIN_LENS.height * 3).fill(90) };
  const lens = { ...TWIN_LENS, mount: { ...TWIN_LENS.mount, pitch_deg: TWIN_LENS.mount.pitch_deg + (cam.pitch * 180) / Math.PI } };
  return renderView({ x: cam.x, y: cam.y, heading: cam.heading }, w.ball, lens, cam.z);
}

/** A sighting in the twin's terms: bearing and distance from the lens (radians, metres). */
export function twinSees(seen: BallSighting | undefined): TwinWorld['sees'] {
  return seen === undefined ? null : { bearing: (seen.bearing_deg * Math.PI) / 180, distance: seen.distance_m };
}

/** Where a sighting puts the ball on the floor, from the trunk: metres ahead of it and to its left. */
export function sightedFromTrunk(w: TwinWorld, sees: NonNullable<TwinWorld['sees']>): { readonly forward: number; readonly left: number } | undefined {
  const cam = w.camera;
  if (cam === null) return undefined;
  const a = cam.heading + sees.bearing;
  const [dx, dy] = [cam.x + sees.distance * Math.cos(a) - w.trunk.x, cam.y + sees.distance * Math.sin(a) - w.trunk.y];
  return { forward: dx * Math.cos(w.trunk.yaw) + dy * Math.sin(w.trunk.yaw), left: -dx * Math.sin(w.trunk.yaw) + dy * Math.cos(w.trunk.yaw) };
}

/**
 * The look with the lens where the head is now (its height and how far it tips down), as a duck
 * knows them from its trunk IMU and its neck's joints: the nominal mount misreads a ball near
 * the feet, where the ray is steep and a few degrees of sway move its floor point by centimetres.
 */
export function lookFrom(look: BallLook, cam: TwinWorld['camera']): BallLook {
  if (cam === null) return look;
  return { ...look, lens: { ...look.lens, mount: { ...look.lens.mount, height_m: cam.z, pitch_deg: look.lens.mount.pitch_deg + (cam.pitch * 180) / Math.PI } } };
}
