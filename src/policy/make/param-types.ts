/**
 * What the bundled policies' parameters mean (the values are in params.ts). Every angle is rad,
 * and every amplitude is in "leg space" (synergies.ts): crouch, swing, roll and yaw of one leg,
 * turned into joint offsets by the leg's signs, so a tuner moves one number per idea and never
 * has to know which joint of which leg is mirrored.
 */

/** [min, max] */
export type Range = readonly [number, number];

/**
 * How the MJCF's joint axes turn: +1 or -1 per leg and joint. Measured in the twin (one joint
 * moved 0.2 rad from home, the foot site watched in the trunk frame): +hip pitch on the left
 * (−y axis) and −hip pitch on the right (+y) swing the foot forward, so hipPitchForward is +1;
 * +hip roll moves either foot to the right (both axes are −x, not mirrored), so both roll signs
 * are −1; +hip yaw turns either toe to the left (+z), so both yaw signs are +1. The right ankle
 * (+y, mirroring the left) needs no sign: the synergies mirror it with the hip pitch.
 */
export interface SignParams {
  /** +1 when hip pitch in the crouch direction (left +, right -, as in the legacy home) swings the foot forward: knees point forward. */
  readonly hipPitchForward: number;
  /** +1 when a positive hip roll moves that foot to the robot's left (+y). */
  readonly hipRollLeft: number;
  readonly hipRollRight: number;
  /** +1 when a positive hip yaw turns that foot's toe to the left (counter-clockwise seen from above). */
  readonly hipYawLeft: number;
  readonly hipYawRight: number;
}

/** The standing posture, as offsets from home (zero: stand at home). */
export interface StanceParams {
  /** Both legs, crouch units (+ lower). */
  readonly crouch: number;
  /** Both feet outward by this much hip roll. */
  readonly splay: number;
  /** Both legs, swing units (+ feet forward, so the trunk leans back). */
  readonly lean: number;
}

/**
 * Balance: joint offsets from the IMU terms of the observation, in every policy. Tilt comes from
 * projected gravity g (upright (0, 0, -1)): pitch ≈ g_x (nose down +), roll ≈ -g_y (left side up
 * +); rates are the gyro's ω_y and ω_x.
 */
export interface BalanceParams {
  /** Hip swing per rad of pitch, backwards: nose down → legs swing back under the trunk. */
  readonly pitchHip: number;
  /** The same per rad/s of pitch rate. */
  readonly pitchHipRate: number;
  /** Ankle toe-down per rad of pitch (ankle strategy: press the toes when falling forward). */
  readonly pitchAnkle: number;
  readonly pitchAnkleRate: number;
  /** Hip roll per rad of roll tilt, to roll the trunk back over the feet. */
  readonly rollHip: number;
  readonly rollHipRate: number;
}

/**
 * A phase-oscillator gait (walk, turn). φ runs 0 → 1 over period_s; s = sin 2πφ, c = cos 2πφ. The
 * left foot swings while s > 0, the right while s < 0.
 */
export interface GaitParams {
  /** One full cycle (a left and a right step), s. */
  readonly period_s: number;
  /** Crouch of the swing leg at mid-swing (crouch units): lifts the foot, flat. */
  readonly stepHeight: number;
  /** Swing amplitude per m/s of vx: foot fore-aft = ∓ c × this × vx (left −, right +). */
  readonly stridePerVx: number;
  /** Hip roll amplitude per m/s of vy, the same pattern sideways. */
  readonly lateralPerVy: number;
  /**
   * Hip yaw amplitude per rad/s of vyaw, the same pattern about the vertical. Both tuned gaits'
   * are negative: which foot grips is not the one the pattern assumes, and the measured turn goes
   * the other way (a positive one turns clockwise for +vyaw). The walk's was positive until the
   * heading hold first sent a walk a vyaw (test/policy/twin.test.ts now checks the direction).
   */
  readonly yawPerVyaw: number;
  /**
   * Hip roll of both legs × s (+: the feet to the left while the left foot swings). Its sign is
   * the search's: the tuned gaits take it negative, which in the twin rolls the trunk left side
   * up (onto the right foot) while the left foot swings (measured: +3° at φ ≈ 0.3), where a
   * positive one walks the duck backwards.
   */
  readonly sway: number;
  /** Stepping (lift and sway) turns on with the command: activity = min(1, Σ |command_i| × gain_i); zero command stands. */
  readonly activity: { readonly vx: number; readonly vy: number; readonly vyaw: number };
  /** The command is clamped to these inside the graph, and the manifest says them (command.ranges). */
  readonly ranges: { readonly vx: Range; readonly vy: Range; readonly vyaw: Range };
  /**
   * Optional, not tuned: a command whose size on an axis is below this reads as zero there, so
   * the gait stands (a stand-in for a trained walk that does not step from rest below vx 0.4).
   */
  readonly deadband?: { readonly vx: number; readonly vy: number; readonly vyaw: number };
}

/**
 * A kick, as a function of its phase φ (0 → 1 over duration_s): shift the weight onto the other
 * foot, lift the kicking foot, wind back, swing forward and extend the knee, come back. It starts
 * and ends at the stand pose (every term is zero at φ = 0 and 1).
 */
export interface KickParams {
  readonly duration_s: number;
  /** Hip roll of both legs toward the support foot (+: feet toward the kicking side), at its plateau; the search decides its sign, as for GaitParams.sway. */
  readonly shift: number;
  /** How fast the shift reaches its plateau: shift × clip(ramp × (1 − c) / 2, 0, 1); 2 = full from φ 0.25 to 0.75. */
  readonly shiftRamp: number;
  /** Crouch of the kicking leg × relu(−c) (φ 0.25 to 0.75, most at 0.5). */
  readonly lift: number;
  /** Swing backwards × 2 relu(−c) relu(s) (φ 0.25 to 0.5). */
  readonly windBack: number;
  /** Swing forwards × 2 relu(−c) relu(−s) (φ 0.5 to 0.75): the kick. */
  readonly swing: number;
  /** Knee extension during the forward swing (rad of knee). */
  readonly kneeExtend: number;
}

export interface PolicyParams {
  /** target = home + actionScale × action; the graphs divide their offsets by it. */
  readonly actionScale: number;
  /** The bundled MuJoCo duck's home pose, in policy joint order. */
  readonly home: readonly number[];
  readonly signs: SignParams;
  readonly stance: StanceParams;
  readonly balance: BalanceParams;
  readonly walk: GaitParams;
  readonly turn: GaitParams;
  readonly kick: KickParams;
}
