/**
 * sim2d's search_scan by its synthetic camera (`camera: synthetic`): turn in 30° steps and, after
 * each, grab a frame and look for the ball by colour, as a real duck with a camera would; the
 * result says what the detector measured. A camera that fails ends the scan with its one line.
 */
import type { VerbResult } from '../../body.js';
import { CameraError, type Camera } from '../../../camera/camera.js';
import { detectBall, ORANGE, type BallLook, type BallSighting } from '../../../vision/ball.js';
import { BALL_RADIUS, rad, round2 } from './arena.js';
import { SIM2D_LENS } from './view.js';

/** How sim2d's detector reads its camera's frames: its lens, the orange ball and its size. */
export const SIM2D_BALL_LOOK: BallLook = { lens: SIM2D_LENS, colour: ORANGE, diameter_m: 2 * BALL_RADIUS };
export const SCAN_STEPS = 12;
export const SCAN_STEP = rad(30);

/** What a sighting tells the pilot, in the same fields as the simulator's own answer. */
export function sightingData(seen: BallSighting): Record<string, unknown> {
  return { ball_visible: true, ball_bearing_deg: Math.round(seen.bearing_deg), ball_distance_m: round2(seen.distance_m), ball_pixels: seen.pixels, measured_by: 'camera' };
}

/** Look with `camera` after each of `turn`'s steps until the ball is seen or a full turn is done. */
export async function cameraScan(camera: Camera, turn: (radians: number) => void, describe: (seen: BallSighting) => string): Promise<VerbResult> {
  try {
    for (let i = 0; i < SCAN_STEPS; i++) {
      const seen = detectBall(await camera.grab(), SIM2D_BALL_LOOK);
      if (seen !== undefined) return { ok: true, summary: `ball found at ${describe(seen)} (camera, ${seen.pixels} px)`, data: { ...sightingData(seen), turned_deg: i * 30 } };
      turn(SCAN_STEP);
    }
  } catch (error) {
    if (error instanceof CameraError) return { ok: false, summary: error.message, data: { ball_visible: false, camera_failed: error.kind } };
    throw error;
  }
  return { ok: true, summary: 'no ball in sight after a full turn (camera)', data: { ball_visible: false, turned_deg: 360, measured_by: 'camera' } };
}
