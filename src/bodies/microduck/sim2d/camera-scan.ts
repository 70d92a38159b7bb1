/**
 * How sim2d's detector reads its synthetic camera's frames (`camera: synthetic`): its lens, the
 * orange ball and its size. The scan itself is any camera body's (src/bodies/camera-scan.ts).
 */
import { ORANGE, type BallLook } from '../../../vision/ball.js';
import { BALL_RADIUS, rad } from './arena.js';
import { SIM2D_LENS } from './view.js';

export const SIM2D_BALL_LOOK: BallLook = { lens: SIM2D_LENS, colour: ORANGE, diameter_m: 2 * BALL_RADIUS };
export const SCAN_STEP = rad(30);
