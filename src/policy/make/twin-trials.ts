/**
 * The measured trials of the bundled policies in the MuJoCo twin, shared by the tuner (tune.ts)
 * and the twin tests: walk forward, turn 90° and stop, kick a ball placed in front of a foot,
 * stand. Each is one closed loop (twin-loop.ts) on a fresh plant, deterministic given its seed:
 * the seed picks the duck's heading (sim2d's layout for it), the duck stands in open floor so no
 * wall or sofa is in reach, and the ball lies where the trial needs it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMujocoPlant, type DuckModel, type MujocoPlant } from '../../bodies/microduck/mujoco/plant.js';
import type { Mujoco } from '../../bodies/microduck/mujoco/wasm.js';
import { layoutForSeed, type Sim2dLayout } from '../../bodies/microduck/sim2d/sim2d-body.js';
import { BUNDLED_SLOTS, bundledPolicyDir, type BundledSlot } from '../bundled.js';
import { loadPolicy } from '../load.js';
import type { Twist } from '../observation.js';
import type { Policy } from '../policy.js';
import { commandFor } from '../command.js';
import { writePolicies } from './make-policies.js';
import { NOMINAL } from './nominal.js';
import type { PolicyParams } from './param-types.js';
import { trunkTilt } from '../../control/fall.js';
import { runPolicyInTwin, type LoopPolicy, type LoopResult, type TwinPlant } from './twin-loop.js';

/** One policy per slot, and the duck they drive when it is not quackd's own (a trained set's model). */
export type PolicySet = Readonly<Record<BundledSlot, LoopPolicy>> & { readonly duck?: DuckModel };

/** The walk trial's command: the bundled walk's nominal forward speed. */
export const WALK_COMMAND: Twist = { vx: NOMINAL.walk.vx, vy: 0, vyaw: 0 };
/** The turn trial's yaw rate command, rad/s (its sign follows the goal): the bundled turn's nominal. */
export const TURN_VYAW = NOMINAL.turn.vyaw;
/**
 * A turn stops this far ahead of its goal, in seconds of the measured yaw rate (gyro z): the
 * duck keeps turning for a moment after it is told to stand.
 */
export const TURN_LEAD_S = 0.1;
/** After a turn or a kick, the stand runs this long before the result is read. */
export const SETTLE_S = 1.5;

/** Open floor in sim2d's room: at least 1.5 m to every wall and the sofa. */
const CLEAR_SPOT = { x: 1.5, y: 1.5 } as const;
/** Where the ball waits when a trial does not need it: the far corner. */
const FAR_BALL = { x: 4.7, y: 0.3 } as const;

/** The seed's heading, on open floor; the ball far away, or at (forward, left) of the trunk. */
export function trialLayout(seed: number, ball?: { readonly forward: number; readonly left: number }): Sim2dLayout {
  const heading = layoutForSeed(seed).duck.heading;
  const duck = { ...CLEAR_SPOT, heading };
  if (ball === undefined) return { duck, ball: FAR_BALL };
  const [c, s] = [Math.cos(heading), Math.sin(heading)];
  return { duck, ball: { x: duck.x + ball.forward * c - ball.left * s, y: duck.y + ball.forward * s + ball.left * c } };
}

/** Where a kick trial puts the ball: its centre this far ahead of the trunk origin, in front of the foot. */
export const KICK_BALL = { forward: 0.14, left: 0.06 } as const;

function withPlant<T>(mujoco: Mujoco, policies: PolicySet, layout: Sim2dLayout, seed: number, run: (plant: MujocoPlant) => Promise<T>): Promise<T> {
  const plant = createMujocoPlant(mujoco, { seed, layout, ...(policies.duck !== undefined ? { model: policies.duck } : {}) });
  return run(plant).finally(() => plant.close());
}

export interface WalkTrial {
  readonly run: LoopResult;
  /** m, along the start heading */
  readonly forward: number;
  readonly sideways: number;
  /** rad */
  readonly yaw: number;
  readonly maxTilt: number;
}

export function walkTrial(mujoco: Mujoco, policies: PolicySet, seed: number, seconds = 10, command: Twist = WALK_COMMAND): Promise<WalkTrial> {
  return withPlant(mujoco, policies, trialLayout(seed), seed, async (plant) => {
    const run = await runPolicyInTwin(plant, policies.walk, { command, seconds });
    return { run, forward: run.forward, sideways: run.left, yaw: run.yawTurned, maxTilt: run.maxTilt };
  });
}

export interface TurnTrial {
  readonly goal: number;
  /** Yaw turned at the end of the settle, rad. */
  readonly turned: number;
  /** turned − goal, rad. */
  readonly error: number;
  /** How long the turn policy ran, s. */
  readonly turnSeconds: number;
  /** Drift of the trunk over the turn and the settle, m. */
  readonly drift: number;
  readonly maxTilt: number;
  readonly fell: boolean;
}

/**
 * Turns by `goal` rad (+ left): the turn policy at the rate the turn verb sends it until the yaw turned is within
 * TURN_LEAD_S × the yaw rate of the goal (at most `bound` s), then the stand for SETTLE_S.
 */
export async function turnBy(plant: TwinPlant, policies: PolicySet, goal: number, bound = 10): Promise<Omit<TurnTrial, 'goal' | 'error'> & { readonly stand: LoopResult }> {
  const sign = Math.sign(goal) || 1;
  // What the turn verb sends this policy (its nominal, else the top of its range): TURN_VYAW for the bundled turn.
  const sent = commandFor(policies.turn.manifest, 'vyaw', sign);
  const turn = await runPolicyInTwin(plant, policies.turn, {
    command: { vx: 0, vy: 0, vyaw: typeof sent === 'string' ? sign * TURN_VYAW : sent.value },
    seconds: bound,
    until: (tick) => sign * (goal - tick.yawTurned) <= Math.max(0, sign * tick.frame.gyro[2] * TURN_LEAD_S),
  });
  const stand = turn.fell ? turn : await runPolicyInTwin(plant, policies.stand, { seconds: SETTLE_S });
  const turned = turn.yawTurned + (turn.fell ? 0 : stand.yawTurned);
  const drift = Math.hypot(stand.end.x - turn.start.x, stand.end.y - turn.start.y);
  return { turned, turnSeconds: turn.seconds, drift, maxTilt: Math.max(turn.maxTilt, stand.maxTilt), fell: turn.fell || stand.fell, stand };
}

export function turnTrial(mujoco: Mujoco, policies: PolicySet, seed: number, goal = Math.PI / 2): Promise<TurnTrial> {
  return withPlant(mujoco, policies, trialLayout(seed), seed, async (plant) => {
    const r = await turnBy(plant, policies, goal);
    return { goal, turned: r.turned, error: r.turned - goal, turnSeconds: r.turnSeconds, drift: r.drift, maxTilt: r.maxTilt, fell: r.fell };
  });
}

export interface KickTrial {
  /** How far the ball moved from where it lay, m (read after the settle). */
  readonly ball: number;
  /** The closest the kicking foot's sole centre came to the ball's centre during the kick, m (a search's hint while the ball is missed). */
  readonly reach: number;
  /** Its direction of travel relative to the duck's heading, rad (+ left). */
  readonly ballBearing: number;
  readonly maxTilt: number;
  readonly fell: boolean;
}

export function kickTrial(mujoco: Mujoco, policies: PolicySet, seed: number, side: 'left' | 'right'): Promise<KickTrial> {
  const layout = trialLayout(seed, { forward: KICK_BALL.forward, left: side === 'left' ? KICK_BALL.left : -KICK_BALL.left });
  return withPlant(mujoco, policies, layout, seed, async (plant) => {
    const b0 = plant.ball();
    const foot = plant.sim.id('site', `${side}_foot`);
    // A model without the foot site (a user's) measures no reach.
    let reach = foot < 0 ? Number.NaN : Infinity;
    const kick = await runPolicyInTwin(plant, side === 'left' ? policies.kick_left : policies.kick_right, {
      each: () => {
        const sites = plant.sim.siteXpos();
        const b = plant.ball();
        reach = Math.min(reach, Math.hypot((sites[3 * foot] ?? 0) - b.x, (sites[3 * foot + 1] ?? 0) - b.y, (sites[3 * foot + 2] ?? 0) - b.z));
      },
    });
    const stand = kick.fell ? kick : await runPolicyInTwin(plant, policies.stand, { seconds: SETTLE_S });
    const b1 = plant.ball();
    const bearing = Math.atan2(b1.y - b0.y, b1.x - b0.x) - layout.duck.heading;
    return { ball: Math.hypot(b1.x - b0.x, b1.y - b0.y), reach, ballBearing: Math.atan2(Math.sin(bearing), Math.cos(bearing)), maxTilt: Math.max(kick.maxTilt, stand.maxTilt), fell: kick.fell || stand.fell };
  });
}

export interface StandTrial {
  readonly maxTilt: number;
  /** m */
  readonly drift: number;
  readonly fell: boolean;
  readonly seconds: number;
}

export function standTrial(mujoco: Mujoco, policies: PolicySet, seed: number, seconds = 5): Promise<StandTrial> {
  return withPlant(mujoco, policies, trialLayout(seed), seed, async (plant) => {
    const run = await runPolicyInTwin(plant, policies.stand, { seconds });
    return { maxTilt: Math.max(run.maxTilt, trunkTilt(run.end)), drift: Math.hypot(run.forward, run.left), fell: run.fell, seconds: run.seconds };
  });
}

/** The bundled policies as committed, on onnxruntime-node (or the auto fallback). */
export async function loadBundledPolicies(): Promise<PolicySet & { close(): Promise<void> }> {
  return loadPolicySet((slot) => bundledPolicyDir(slot));
}

/** Policies generated from `params` into a temp folder and loaded as the bundled ones are. */
export async function loadGeneratedPolicies(params: PolicyParams): Promise<PolicySet & { close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'quackd-tune-'));
  try {
    writePolicies(dir, params);
    return await loadPolicySet((slot) => join(dir, slot));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Each slot's policy from its folder (on quackd's duck: add `duck` for a model of your own). */
export async function loadPolicySet(dirOf: (slot: BundledSlot) => string): Promise<PolicySet & { close(): Promise<void> }> {
  const loaded = await Promise.all(BUNDLED_SLOTS.map(async (slot): Promise<[BundledSlot, Policy]> => [slot, await loadPolicy(dirOf(slot), { runtime: 'onnxruntime-node' })]));
  const bySlot = new Map(loaded);
  const get = (slot: BundledSlot): Policy => {
    const p = bySlot.get(slot);
    if (p === undefined) throw new Error(`twin trials: no ${slot} policy`);
    return p;
  };
  return {
    walk: get('walk'),
    turn: get('turn'),
    stand: get('stand'),
    kick_left: get('kick_left'),
    kick_right: get('kick_right'),
    close: async () => {
      await Promise.all(loaded.map(([, p]) => p.close()));
    },
  };
}
