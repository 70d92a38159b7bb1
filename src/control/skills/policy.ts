/**
 * `policy`: a skill driven by an ONNX policy, in the control worker: each tick the observation
 * (the manifest's layout, the gait phase from the time since start), the policy's raw action,
 * and target = home + action_scale × action, which the safety stage then limits. It ends as the
 * verb asks: after a distance along the heading it started with (walk), a yaw change (turn), or
 * its manifest's duration (a kick); a time limit ends it in any case, and the body reports what
 * was reached. A tick without a trunk pose cannot measure progress: it runs to the time limit.
 * A walk also ends where the plant's proximity says its way is blocked (a wall ahead).
 *
 * The previous action (an observation term) carries from one verb to the next, as the original
 * runtimes keep it across walk and stand: a policy is trained on a stream of its own actions, and
 * a zero at each verb's first tick is a step it never saw. It lives as long as this worker, the
 * body's loop, and starts at zeros with it. The Open Duck Mini v2's walk (open-duck-mini-v2) also
 * observes the two actions before it and its last motor targets, which carry the same way between
 * its own verbs; its imitation phase starts afresh with each verb, as its runtime's does at start.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import * as z from '../../zod-mini.js';
import { runtimeSettled } from '../../policy/in-flight.js';
import { loadPolicy } from '../../policy/load.js';
import { loadRuntime } from '../../policy/runtime.js';
import { ImitationPhase } from '../../policy/imitation-phase.js';
import { actionScale } from '../../policy/manifest.js';
import { buildObservation, type ObservationInput } from '../../policy/observation.js';
import { phaseAt } from '../../policy/phase.js';
import type { Policy } from '../../policy/policy.js';
import type { Json } from '../module-spec.js';
import type { SensorFrame, TrunkPose } from '../plant.js';
import type { Skill, SkillContext } from '../skill.js';
import { HEADING_HOLD, HeadingHold } from './heading-hold.js';

/** Which ONNX runtime a policy runs on (policy/runtime.ts): `auto` unless a spec names one. */
const Runtime = z._default(z.enum(['auto', 'onnxruntime-node', 'onnxruntime-web']), 'auto');

const Options = z.strictObject({
  dir: z.string().check(z.minLength(1)),
  command: z.strictObject({ vx: z.number(), vy: z.number(), vyaw: z.number() }),
  until: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('distance'), metres: z.number() }),
    z.strictObject({ kind: z.literal('yaw'), rad: z.number() }),
    z.strictObject({ kind: z.literal('duration') }),
  ]),
  timeoutMs: z.number().check(z.positive()),
  runtime: Runtime,
  /** A straight walk's heading hold (heading-hold.ts): its defaults when absent, none when false. */
  heading_hold: z.optional(z.union([z.literal(false), z.strictObject({ gain: z.number().check(z.positive()), max_vyaw: z.number().check(z.positive()) })])),
  /**
   * Over this long before its time limit the action fades to nothing, so its last targets are the
   * home pose (easedShare): what a body holds after a stand is the stance, not its last reaction.
   */
  ease_home_ms: z.optional(z.number().check(z.positive())),
});

/**
 * A turn ends this long before the yaw reaches its goal at the rate the gyro reads: the gait
 * goes on turning for a tick or two after its verb ends. Measured in the twin on turns of 5–90°:
 * without it every turn overshot by 0–3°, with 0.03 s they land within 1° (0.06 s undershoots).
 */
const YAW_LEAD_S = 0.03;

const wrap = (a: number): number => Math.atan2(Math.sin(a), Math.cos(a));

/**
 * How much of the action a tick at `tMs` applies when it eases home over `easeMs` before `endMs`:
 * all of it until then, none on the last two ticks (a late tick that skips one still ends home).
 * A stand's last action is its answer to the sway of that moment, which a body holding it as its
 * targets would hold long after the sway is gone (gait-settle.ts's SETTLE_EASE_MS says what it did).
 */
export function easedShare(tMs: number, endMs: number, periodMs: number, easeMs: number | undefined): number {
  if (easeMs === undefined) return 1;
  return Math.min(1, Math.max(0, (endMs - 2 * periodMs - tMs) / easeMs));
}

/**
 * How far a verb has got: metres along the heading it started with, or radians turned, summed
 * tick by tick so a turn of 180° is not read as -180° when it gets there.
 */
function progressMeter(start: TrunkPose, kind: 'distance' | 'yaw'): (now: TrunkPose) => number {
  let turned = 0;
  let yaw = start.yaw;
  return (now) => {
    if (kind === 'distance') return (now.x - start.x) * Math.cos(start.yaw) + (now.y - start.y) * Math.sin(start.yaw);
    turned += wrap(now.yaw - yaw);
    yaw = now.yaw;
    return turned;
  };
}

/**
 * Policies this worker has loaded, by folder, runtime and the files' change times: a search_scan
 * is a dozen turns, and an ONNX session is made once, not per verb. A folder whose files changed
 * (a policy installed in place) is loaded afresh. They live as long as the worker, the body's loop.
 */
const loaded = new Map<string, Promise<Policy>>();

function policyFor(dir: string, runtime: z.infer<typeof Options>['runtime']): Promise<Policy> {
  const stamp = ['policy.onnx', 'manifest.json'].map((f) => {
    try {
      return statSync(join(dir, f)).mtimeMs;
    } catch {
      return -1;
    }
  });
  const key = JSON.stringify([dir, runtime, stamp]);
  let policy = loaded.get(key);
  if (policy === undefined) {
    policy = warmedPolicy(dir, runtime);
    loaded.set(key, policy);
    // A refusal is not kept: the person fixes the folder and the next verb tries again.
    policy.catch(() => loaded.delete(key));
  }
  return policy;
}

/**
 * A policy loaded and run once on a zero observation, its result dropped (no target, and not the
 * previous action a verb starts from): a session's first run allocates what later runs reuse, so
 * no verb's first tick pays for it.
 */
async function warmedPolicy(dir: string, runtime: z.infer<typeof Options>['runtime']): Promise<Policy> {
  const policy = await loadPolicy(dir, { runtime });
  try {
    await policy.run(new Float32Array(policy.manifest.obs_len));
  } catch (err) {
    await policy.close();
    throw err;
  }
  return policy;
}

/** What the loop's last policy left that the next verb's first observation holds: one per verb, updated in place each tick. */
interface Carried {
  readonly layout: string;
  /** Its raw actions, newest first: the last, then the two before it. */
  readonly actions: [Float32Array, Float32Array | undefined, Float32Array | undefined];
  /** The targets its last action gave. */
  readonly targets: Float64Array;
}
let carried: Carried | undefined;

/** The previous action a policy starts from: the loop's last one, when it is as wide as this policy's; else zeros. */
function previousAction(width: number): Float32Array {
  const last = carried?.actions[0];
  return last !== undefined && last.length === width ? last : new Float32Array(width);
}

/** The older actions and the last targets, carried only between verbs of the same layout (nothing else observes them). */
function carriedHistory(layout: string): Carried | undefined {
  return carried?.layout === layout ? carried : undefined;
}

/** A policy whose observation needs the accelerometer cannot run on a plant without one: the verb fails saying so. */
function needsAccel(m: Policy['manifest'], frame: SensorFrame): void {
  if (m.obs_layout === 'open-duck-mini-v2' && frame.accel === undefined) {
    throw new Error(`${m.file}: obs_layout open-duck-mini-v2 observes the trunk's accelerometer, and this body reads none (a BNO055 in the robot's settings, or the MuJoCo twin)`);
  }
}

const WarmOptions = z.object({ dirs: z._default(z.array(z.string()), []), runtime: Runtime });

/**
 * Before the loop ticks (warmSkill): the ONNX runtime, and a session of each of the body's
 * policies, run once. Both block the thread as they load (the native binding, its first session
 * 20–30 ms each; later sessions about 6 ms), and five sessions cost about 0.5 MB. A folder that
 * does not load is left for its verb, which says why. While the loop runs (a held body's policy
 * swapped between runs: ControlLoop.warm) the worker calls this right after a tick.
 */
export async function warm(options: Json | undefined): Promise<void> {
  const o = WarmOptions.parse(options ?? {});
  await loadRuntime(o.runtime);
  for (const dir of o.dirs) await policyFor(dir, o.runtime).catch(() => undefined);
}

/** Before the worker ends (settleSkills): every session being made and every run still out. */
export const settle = (): Promise<void> => runtimeSettled();

/**
 * A straight walk (a distance, no yaw asked) holds the heading it started with (heading-hold.ts),
 * from the trunk's yaw where the plant gives one, else the gyro's z summed tick by tick.
 */
function headingHold(o: z.infer<typeof Options>, m: Policy['manifest'], periodMs: number): ((frame: SensorFrame, tMs: number) => number) | undefined {
  if (o.until.kind !== 'distance' || o.command.vyaw !== 0 || o.command.vx === 0 || o.heading_hold === false) return undefined;
  // One gait cycle (a policy without a phase: half a second, about a stride of the trained walks).
  const hold = new HeadingHold(o.heading_hold ?? HEADING_HOLD, ((m.command?.period_s ?? 0.5) * 1000) / periodMs);
  let gyroYaw = 0;
  let lastMs: number | undefined;
  return (frame, tMs) => {
    if (frame.trunk !== undefined) return hold.update(frame.trunk.yaw);
    gyroYaw += frame.gyro[2] * (lastMs === undefined ? 0 : (tMs - lastMs) / 1000);
    lastMs = tMs;
    return hold.update(gyroYaw);
  };
}

export async function createSkill(options: Json | undefined, context: SkillContext): Promise<Skill> {
  const o = Options.parse(options);
  const policy = await policyFor(o.dir, o.runtime);
  const m = policy.manifest;
  const scale = actionScale(m);
  const durationMs = m.duration_s !== undefined ? m.duration_s * 1000 : undefined;
  const obs = new Float32Array(m.obs_len);
  const targets = new Float64Array(m.home.length);
  let last: Float32Array = previousAction(m.action_len);
  const history = carriedHistory(m.obs_layout);
  let before = history?.actions[1];
  let beforeThat = history?.actions[2];
  let lastTargets: Float64Array | undefined = history?.targets;
  const imitation = m.obs_layout === 'open-duck-mini-v2' ? new ImitationPhase(m.command?.phase_steps ?? 1, m.command?.phase_offset ?? 0) : undefined;
  const zeros = new Float32Array(m.action_len);
  const mine: Carried = { layout: m.obs_layout, actions: [last, before, beforeThat], targets };
  let progress: ((now: TrunkPose) => number) | undefined;
  const hold = headingHold(o, m, context.periodMs);
  const command = { ...o.command };
  return {
    start(frame) {
      needsAccel(m, frame);
      progress = frame.trunk !== undefined && o.until.kind !== 'duration' ? progressMeter(frame.trunk, o.until.kind) : undefined;
    },
    async tick(frame, tMs) {
      const u = o.until;
      if (tMs >= o.timeoutMs) return 'done';
      if (u.kind === 'duration' && durationMs !== undefined && tMs >= durationMs) return 'done';
      if (u.kind !== 'duration' && progress !== undefined && frame.trunk !== undefined) {
        const goal = u.kind === 'yaw' ? u.rad : u.metres;
        // Progress the wrong way (a policy turning right when asked left) never counts as done.
        const lead = u.kind === 'yaw' ? Math.max(0, frame.gyro[2] * Math.sign(goal)) * YAW_LEAD_S : 0;
        if (progress(frame.trunk) * Math.sign(goal) + lead >= Math.abs(goal)) return 'done';
      }
      // A walk whose way is blocked ends there; the body says by what (it senses the same).
      if (u.kind === 'distance' && frame.proximity !== undefined && (u.metres >= 0 ? frame.proximity.ahead : frame.proximity.behind) !== null) return 'done';
      if (hold !== undefined) command.vyaw = hold(frame, tMs);
      const input: ObservationInput =
        imitation === undefined
          ? { frame, home: m.home, lastAction: last, command, phase: phaseAt(m, tMs / 1000) }
          : {
              frame,
              home: m.home,
              lastAction: last,
              command,
              pastActions: [before ?? zeros, beforeThat ?? zeros],
              imitationPhase: imitation.observed(),
              ...(lastTargets !== undefined ? { lastTargets } : {}),
              ...(m.velocity_scale !== undefined ? { velocityScale: m.velocity_scale } : {}),
            };
      buildObservation(m.obs_layout, input, obs);
      const action = await policy.run(obs);
      imitation?.advance();
      beforeThat = before;
      before = last;
      last = action;
      const share = easedShare(tMs, o.timeoutMs, context.periodMs, o.ease_home_ms);
      // Eased, the action applied is the one the next verb's first observation holds: the pose the duck stands in.
      if (share < 1) last = last.map((a) => a * share);
      for (let i = 0; i < targets.length; i++) targets[i] = (m.home[i] ?? 0) + scale * (last[i] ?? 0);
      // This verb's own buffer: read back as the next tick's last targets before it is written again.
      lastTargets = targets;
      mine.actions[0] = last;
      mine.actions[1] = before;
      mine.actions[2] = beforeThat;
      carried = mine;
      return targets;
    },
  };
}
