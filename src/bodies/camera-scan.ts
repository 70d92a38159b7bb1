/**
 * search_scan by a camera, for any body that has one: turn in 30° steps and, after each, grab a
 * frame and look for the ball by colour, as a real duck with a camera does; the result says what
 * the detector measured. The turn is the body's own (instant in sim2d, a walked skill on the twin
 * and the real duck), so it is awaited, and a turn that ends badly (a fall, a stop) ends the scan
 * with its result. A camera that fails ends the scan with its one line.
 */
import { CameraError, type Camera } from '../camera/camera.js';
import { describePlace, describeSighting, detectBall, type BallLook, type BallSighting } from '../vision/ball.js';
import type { VerbResult } from './body.js';

export const SCAN_STEP_DEG = 30;
export const SCAN_STEPS = 360 / SCAN_STEP_DEG;

const round2 = (n: number): number => Math.round(n * 100) / 100;

/** What a sighting tells the pilot, in the same fields as a simulator's own answer. */
export function sightingData(seen: BallSighting): Record<string, unknown> {
  return { ball_visible: true, ball_bearing_deg: Math.round(seen.bearing_deg), ball_distance_m: round2(seen.distance_m), ball_pixels: seen.pixels, measured_by: 'camera' };
}

/**
 * What the camera sees now, for an observation: a body with a camera and no simulator behind it
 * tells the pilot the ball as its detector finds it in a fresh frame (looking moves nothing). A
 * camera that fails is said in the summary, never thrown: an observation always comes back.
 */
export async function cameraGlance(camera: Camera, look: BallLook): Promise<{ readonly summary: string; readonly data: Record<string, unknown>; readonly seen?: BallSighting }> {
  try {
    const seen = detectBall(await camera.grab(), look);
    if (seen === undefined) return { summary: `camera: ${describeSighting(seen)}`, data: { ball_visible: false, measured_by: 'camera' } };
    return { summary: `camera: ${describeSighting(seen)}`, data: sightingData(seen), seen };
  } catch (error) {
    if (error instanceof CameraError) return { summary: `camera: ${error.message}`, data: { ball_visible: false, camera_failed: error.kind } };
    throw error;
  }
}

export interface CameraScan {
  readonly camera: Camera;
  readonly look: BallLook;
  /** One step of the scan, `degrees` to the left: nothing when it went as asked, else the result that ends the scan. */
  readonly turn: (degrees: number) => Promise<VerbResult | undefined> | undefined;
}

/** Look after each of `turn`'s steps until the ball is seen or a full turn is done. */
export async function cameraScan({ camera, look, turn }: CameraScan): Promise<VerbResult> {
  try {
    for (let i = 0; i < SCAN_STEPS; i++) {
      const seen = detectBall(await camera.grab(), look);
      if (seen !== undefined) {
        return { ok: true, summary: `ball found at ${describePlace(seen)} (camera, ${seen.pixels} px)`, data: { ...sightingData(seen), turned_deg: i * SCAN_STEP_DEG } };
      }
      const ended = await turn(SCAN_STEP_DEG);
      if (ended !== undefined) return { ok: false, summary: `search stopped after ${i * SCAN_STEP_DEG}°: ${ended.summary}`, data: { ball_visible: false, ...ended.data, turned_deg: i * SCAN_STEP_DEG } };
    }
  } catch (error) {
    if (error instanceof CameraError) return { ok: false, summary: error.message, data: { ball_visible: false, camera_failed: error.kind } };
    throw error;
  }
  return { ok: true, summary: 'no ball in sight after a full turn (camera)', data: { ball_visible: false, turned_deg: 360, measured_by: 'camera' } };
}
