/**
 * A policy closed-loop in the MuJoCo twin, lock-step and as fast as the CPU allows: the tuner's
 * and the twin tests' loop, and the reference the control worker mirrors. Each 20 ms period:
 * read → buildObservation (the policy's layout; the phase from the policy's own clock) →
 * policy.run → target = home + action_scale × action → joint limits and the per-period step
 * limit (maxVelocity × period, as the safety stage enforces) → plant.send → plant.advance.
 *
 * It measures only what a search scores: the trunk's path in the duck's start frame, its tilt,
 * and how far it has turned. Stopping is the caller's (`until`), e.g. a turn at its goal.
 */
import { trunkTilt } from '../../control/fall.js';
import { SafetyStage } from '../../control/safety.js';
import { phaseAt } from '../phase.js';
import type { Plant, SensorFrame, TrunkPose } from '../../control/plant.js';
import { buildObservation, type Twist } from '../observation.js';
import type { PolicyManifest } from '../manifest.js';
import { OBS_LEN } from '../layouts.js';

/** A control period: 50 Hz. */
export const PERIOD_S = 0.02;

/** Tilt past this is a fall (the tests' and the tuner's rule). */
export const FALL_TILT = (30 * Math.PI) / 180;

/** What the loop needs of a plant: the twin, or anything else that knows its trunk's pose. */
export interface TwinPlant extends Plant {
  advance(periodS: number): void;
  trunk(): TrunkPose;
}

/** What the loop needs of a policy: `loadPolicy`'s Policy fits. */
export interface LoopPolicy {
  readonly manifest: Pick<PolicyManifest, 'obs_layout' | 'obs_len' | 'home' | 'action_scale' | 'command' | 'duration_s' | 'kind'>;
  run(obs: Float32Array): Promise<Float32Array> | Float32Array;
}

/** One period as the caller sees it, after the plant advanced. */
export interface LoopTick {
  /** Policy time at the end of this period, s. */
  readonly t: number;
  readonly trunk: TrunkPose;
  /** Forward and left of the start, in the duck's start frame, m. */
  readonly forward: number;
  readonly left: number;
  /** Signed yaw turned since the start, unwrapped, rad (+ counter-clockwise). */
  readonly yawTurned: number;
  readonly tilt: number;
  readonly frame: SensorFrame;
}

export interface LoopOptions {
  /** The twist command (zeros when absent). */
  readonly command?: Twist;
  /** How long to run at most, s. An episodic policy (a kick) runs its duration_s when this is absent. */
  readonly seconds?: number;
  /** Stop after the period in which this returns true. */
  readonly until?: (tick: LoopTick) => boolean;
  /** Called after every period. */
  readonly each?: (tick: LoopTick) => void;
  /** Stop at the first fall (tilt > FALL_TILT); default true. */
  readonly stopOnFall?: boolean;
}

export interface LoopResult {
  readonly ticks: number;
  readonly seconds: number;
  readonly start: TrunkPose;
  readonly end: TrunkPose;
  readonly forward: number;
  readonly left: number;
  readonly yawTurned: number;
  /** The largest trunk tilt seen, rad. */
  readonly maxTilt: number;
  /** Mean tilt over the run, rad. */
  readonly meanTilt: number;
  readonly fell: boolean;
  /** Why it ended: the time bound, `until`, a fall, or a failed read. */
  readonly stoppedBy: 'time' | 'until' | 'fall' | 'read';
}


const wrap = (a: number): number => Math.atan2(Math.sin(a), Math.cos(a));


/**
 * Runs `policy` on `plant` until `seconds` (or a kick's duration), `until`, a fall or a failed
 * read. The plant keeps its state between calls, so a turn then a stand is two calls.
 */
export async function runPolicyInTwin(plant: TwinPlant, policy: LoopPolicy, options: LoopOptions = {}): Promise<LoopResult> {
  const m = policy.manifest;
  const command = options.command ?? { vx: 0, vy: 0, vyaw: 0 };
  const seconds = options.seconds ?? m.duration_s ?? 1;
  const periods = Math.round(seconds / PERIOD_S);
  const scale = m.action_scale ?? 1;
  const home = m.home;
  const obs = new Float32Array(OBS_LEN[m.obs_layout]);
  let last: Float32Array = new Float32Array(home.length);
  const targets = new Float64Array(home.length);
  const start = plant.trunk();
  const [cos0, sin0] = [Math.cos(start.yaw), Math.sin(start.yaw)];
  // The control loop's own safety stage, holding where the joints are: tuning and tests see the
  // very limits a run has (and only it may send a plant targets: test/invariants.test.ts).
  const first = plant.read();
  const safety = new SafetyStage(plant, PERIOD_S);
  safety.establish(Float64Array.from(first?.jointPos ?? home));
  let yawTurned = 0;
  let yawPrev = start.yaw;
  let maxTilt = trunkTilt(start);
  let tiltSum = 0;
  let ticks = 0;
  let stoppedBy: LoopResult['stoppedBy'] = 'time';
  let end = start;
  let forward = 0;
  let left = 0;
  for (; ticks < periods; ) {
    const frame = ticks === 0 && first !== undefined ? first : plant.read();
    if (frame === undefined) {
      stoppedBy = 'read';
      break;
    }
    const t0 = ticks * PERIOD_S;
    buildObservation(m.obs_layout, { frame, home, lastAction: last, command, phase: phaseAt(m, t0) }, obs);
    last = Float32Array.from(await policy.run(obs));
    for (let i = 0; i < targets.length; i++) targets[i] = (home[i] ?? 0) + scale * (last[i] ?? 0);
    safety.submit(targets);
    plant.advance(PERIOD_S);
    ticks++;
    end = plant.trunk();
    yawTurned += wrap(end.yaw - yawPrev);
    yawPrev = end.yaw;
    const [dx, dy] = [end.x - start.x, end.y - start.y];
    forward = dx * cos0 + dy * sin0;
    left = -dx * sin0 + dy * cos0;
    const tilt = trunkTilt(end);
    maxTilt = Math.max(maxTilt, tilt);
    tiltSum += tilt;
    const tick: LoopTick = { t: ticks * PERIOD_S, trunk: end, forward, left, yawTurned, tilt, frame };
    options.each?.(tick);
    if ((options.stopOnFall ?? true) && tilt > FALL_TILT) {
      stoppedBy = 'fall';
      break;
    }
    if (options.until?.(tick) === true) {
      stoppedBy = 'until';
      break;
    }
  }
  return { ticks, seconds: ticks * PERIOD_S, start, end, forward, left, yawTurned, maxTilt, meanTilt: ticks > 0 ? tiltSum / ticks : 0, fell: maxTilt > FALL_TILT, stoppedBy };
}
