/**
 * microduck:mujoco, the Microduck's physics twin: the MuJoCo duck (src/bodies/microduck/mujoco)
 * in sim2d's living room, its joints driven by skill policies in the 50 Hz control loop (a worker
 * thread: src/control). A verb is a policy run until the twin's own pose says it is done: walk a
 * distance along the heading, turn an angle, one kick; search_scan turns in 30° steps as sim2d
 * does. Nothing here sends a joint target: the loop's safety stage does.
 *
 * Between verbs the loop runs the stand policy (a duck left holding a gait's last pose, or even
 * its home pose, on servos that cannot hold it tips over while its pilot thinks). A stop at any
 * moment of a verb, from its first reading to the end of its settle, ends it at the next tick,
 * and its result says what was done by then; a fall in the verb or its settle is the verb's
 * result, and one between verbs is trouble (onTrouble) the run hears at once.
 */
import { ControlLoop } from '../../../control/control-loop.js';
import { ControlError } from '../../../control/errors.js';
import { trunkTilt } from '../../../control/fall.js';
import type { HeadingHoldSettings } from '../../../control/skills/heading-hold.js';
import type { VerbResult as LoopResult } from '../../../control/skill.js';
import { describeVerb } from '../../../control/skill.js';
import { policySkill, skillWarmups, type PolicyUntil } from '../../../control/skills/specs.js';
import { bundledPolicyDir } from '../../../policy/bundled.js';
import { timeLimitMs, type Axis, type Commanded } from '../../../policy/command.js';
import { verbCommand } from '../policy-verb.js';
import { SLOTS, type Slot } from '../../../policy/slots.js';
import { siblingModule } from '../../../worker-thread.js';
import { BodyError, type Body, type BodyEyes, type BodyOptions, type BodyTrouble, type Frame, type Intent, type Metrics, type Observation, type VerbResult } from '../../body.js';
import { turnedDeg } from '../heading.js';
import { SimTorque } from '../torque.js';
import { describeBearing, type Sim2dLayout } from '../sim2d/sim2d-body.js';
import { TwinWorldSchema, type TwinWorld } from './control-plant.js';
import { mujocoSettings } from './settings.js';
import { CameraError } from '../../../camera/camera.js';
import { SyntheticCamera } from '../../../camera/synthetic-camera.js';
import { detectBall } from '../../../vision/ball.js';
import { cameraScan, SCAN_STEP_DEG } from '../../camera-scan.js';
import { lookFrom, renderTwinView, sightedFromTrunk, twinSees, TWIN_BALL_LOOK } from './twin-camera.js';
import { modelJson, userModel } from './user-model.js';
import { footFor, reachData } from '../kick-reach.js';

const KEY = 'microduck:mujoco' as const;
/** How long the duck stands after a kick while the ball rolls on. */
const KICK_SETTLE_MS = 1500;
/**
 * How long the duck stands after a walk or a turn, at either pace: a gait stopped mid-stride
 * holds one foot in the air and its trunk twisted over it (the bundled walk's yaw read there
 * swings 10–40° from the way its feet point), a duck left so tips over at pace realtime, and in
 * lock-step the next verb starts from that stride: walks veered 19° on average (up to 42° in a
 * 0.14 m walk) and a walk started right after a turn fell. Standing 300 ms first: 8° on average,
 * and what the camera and the feet report is where the next verb starts from.
 */
const GAIT_SETTLE_MS = 300;
/**
 * How far the duck carries on while it stands after a walk: measured 1.5–3 cm at the bundled
 * walk's nominal speed (0.12 m asked, 0.14–0.15 m walked). A walk ends this much short of its
 * goal, so that standing brings it there: a pilot's last leg to a kick is 0.1–0.15 m.
 */
const SETTLE_CARRY_M = 0.02;

/** The loop's period (ControlLoop's default, 50 Hz): a verb's ticks in seconds. */
const PERIOD_MS = 20;

const deg = (r: number): number => Math.round((r * 180) / Math.PI);
const round2 = (n: number): number => Math.round(n * 100) / 100;
const tilt = (w: TwinWorld): number => trunkTilt(w.trunk);

/** The ball on the floor in the duck's own frame: metres ahead of the trunk and to its left. */
function ballFromTrunk(w: TwinWorld): { readonly forward: number; readonly left: number } {
  const [dx, dy] = [w.ball.x - w.trunk.x, w.ball.y - w.trunk.y];
  return { forward: dx * Math.cos(w.trunk.yaw) + dy * Math.sin(w.trunk.yaw), left: -dx * Math.sin(w.trunk.yaw) + dy * Math.cos(w.trunk.yaw) };
}

/** What a verb's drive() says: the twin before and after, how it ended, and whether it ended while settling. */
interface Driven {
  readonly before: TwinWorld;
  readonly after: TwinWorld;
  readonly result: LoopResult;
  readonly settling: boolean;
}

/** The stand's time limit between verbs: a day; it starts again after each verb in any case. */
const IDLE_LIMIT_MS = 86_400_000;

function ballInReach(w: TwinWorld): 'left' | 'right' | undefined {
  const { forward, left } = ballFromTrunk(w);
  return footFor(forward, left);
}

/**
 * What a pilot needs to line up a kick: where the camera puts the ball on the floor relative to
 * the trunk (while it sees it: the camera sits ahead of the trunk, so its bearing alone swings
 * with every turn this close), and where the kicks reach, with `ball_in_reach` always said (the
 * feet's word: the simulator's, with a camera or without).
 */
function kickData(w: TwinWorld, byCamera: boolean): Record<string, unknown> {
  const reach = ballInReach(w);
  const ball = w.sees === null ? undefined : byCamera ? sightedFromTrunk(w, w.sees) : ballFromTrunk(w);
  const seen = ball === undefined ? {} : { ball_ahead_m: round2(ball.forward), ball_left_m: round2(ball.left), ...(byCamera ? { measured_by: 'camera' } : {}) };
  return { ...seen, ...reachData(reach) };
}

export class MujocoBody implements Body {
  readonly key = KEY;
  private quacks = 0;
  private walked = 0;
  private readonly ballStart: { readonly x: number; readonly y: number };
  /** The verb under way's own stop: the caller's signal or stop() ends it, whenever they come. */
  private halt: AbortController | undefined;
  private readonly troubleListeners = new Set<(trouble: BodyTrouble) => void>();
  /** A fall between verbs that nobody heard yet (it fell before the run listened): told to the first listener. */
  private unheard: BodyTrouble | undefined;
  /**
   * With `camera: synthetic`: the head camera rendered from the twin, and the colour detector's
   * reading of it is what the twin sees (in observations, results and search_scan) instead of
   * the simulator's answer. Only the feet's `ball_in_reach` stays the simulator's.
   */
  readonly eyes: BodyEyes | undefined;

  constructor(
    private readonly loop: ControlLoop,
    private readonly policies: (slot: Slot) => string,
    private world: TwinWorld,
    /** How long a walk or a turn ends standing. */
    private readonly gaitSettleMs = GAIT_SETTLE_MS,
    private readonly torque = new SimTorque(),
    camera?: 'synthetic',
    /** A straight walk's heading hold (the robot's `heading_hold`): the defaults when undefined. */
    private readonly headingHold?: HeadingHoldSettings | false,
  ) {
    this.ballStart = { x: world.ball.x, y: world.ball.y };
    this.eyes = camera === 'synthetic' ? { camera: new SyntheticCamera(() => renderTwinView(this.world)), ball: TWIN_BALL_LOOK } : undefined;
    loop.onFall(({ tiltRad }) => {
      const trouble: BodyTrouble = { kind: 'fell', message: `fell between verbs (tilted ${deg(tiltRad)}°)` };
      if (this.troubleListeners.size === 0) this.unheard = trouble;
      for (const listener of [...this.troubleListeners]) listener(trouble);
    });
  }

  private async sense(): Promise<TwinWorld> {
    const parsed = TwinWorldSchema.safeParse(await this.loop.sense());
    if (!parsed.success) throw new BodyError(`${KEY}: the twin reported nothing it could be read from`);
    this.world = parsed.data;
    if (this.eyes !== undefined) this.world = { ...this.world, sees: await this.look(this.eyes) };
    return this.world;
  }

  /** What the camera's frame of the twin now shows; a camera that failed sees nothing (search_scan says why). */
  private async look(eyes: BodyEyes): Promise<TwinWorld['sees']> {
    try {
      return twinSees(detectBall(await eyes.camera.grab(), lookFrom(eyes.ball, this.world.camera)));
    } catch (error) {
      if (error instanceof CameraError) return null;
      throw error;
    }
  }

  private view(w: TwinWorld): string {
    return w.sees === null ? 'no ball in view' : `ball at bearing ${describeBearing(w.sees.bearing)}, ${w.sees.distance.toFixed(2)} m`;
  }

  private viewData(w: TwinWorld): Record<string, unknown> {
    return w.sees === null ? { ball_visible: false } : { ball_visible: true, ball_bearing_deg: deg(w.sees.bearing), ball_distance_m: round2(w.sees.distance) };
  }

  async observe(): Promise<Observation> {
    const w = await this.sense();
    const reach = ballInReach(w);
    return {
      summary: `camera: ${this.view(w)}${reach !== undefined ? `; the ball is at the ${reach} foot` : ''}`,
      data: { ...this.viewData(w), tilt_deg: deg(tilt(w)), ...kickData(w, this.eyes !== undefined) },
    };
  }

  /** Falls between verbs, as trouble: the loop refuses verbs while the duck is down. */
  onTrouble(listener: (trouble: BodyTrouble) => void): () => void {
    this.troubleListeners.add(listener);
    const unheard = this.unheard;
    this.unheard = undefined;
    if (unheard !== undefined) queueMicrotask(() => listener(unheard));
    return () => this.troubleListeners.delete(listener);
  }

  async perform(intent: Intent, signal?: AbortSignal): Promise<VerbResult> {
    if (signal?.aborted === true) return { ok: false, summary: `${intent.verb}: stopped before it started` };
    const halt = new AbortController();
    this.halt = halt;
    const stop = (): void => halt.abort();
    signal?.addEventListener('abort', stop, { once: true });
    this.torque.before(intent.verb);
    try {
      switch (intent.verb) {
        case 'walk':
          return await this.walk(intent.args.metres, halt.signal, intent.args.speed);
        case 'turn':
          return await this.turn(intent.args.degrees, halt.signal, intent.args.rate);
        case 'kick':
          return await this.kick(intent.args.foot, halt.signal);
        case 'search_scan':
          return await this.searchScan(halt.signal);
        case 'quack':
          this.quacks += 1;
          return { ok: true, summary: 'quack!', data: { quacks: this.quacks } };
        case 'torque':
          return this.torque.set(intent.args.on);
        default:
          return { ok: false, summary: `${intent.verb} is not a verb of ${KEY}` };
      }
    } finally {
      signal?.removeEventListener('abort', stop);
      if (this.halt === halt) this.halt = undefined;
    }
  }

  /**
   * Runs one policy verb, then (when it ended as asked) the stand policy for `settleMs`, so the
   * duck is left on both feet; the twin's pose before and after, and how the verb ended: a fall
   * or a stop in the settle is the verb's ending (`settling`), and `ticks` counts both.
   */
  private async drive(slot: Slot, command: { vx: number; vy: number; vyaw: number }, until: PolicyUntil, timeoutMs: number, halt: AbortSignal, settleMs = this.gaitSettleMs): Promise<Driven> {
    const before = await this.sense();
    let result = await this.loop.run(policySkill(this.policies(slot), command, until, timeoutMs, this.headingHold), halt);
    let settling = false;
    if (result.outcome === 'done' && settleMs > 0) {
      const settle = await this.loop.run(policySkill(this.policies('stand'), { vx: 0, vy: 0, vyaw: 0 }, { kind: 'duration' }, settleMs), halt);
      settling = settle.outcome !== 'done';
      if (settling) result = { ...settle, ticks: result.ticks + settle.ticks };
    }
    const after = await this.sense();
    return { before, after, result, settling };
  }

  /** `walked 0.04 m: failed — fell after it, while it settled (tilted 62°)`, `… in 1.9 s: stopped`; undefined when the verb ended as asked. */
  private failed({ result, after, settling }: Driven, what: string): VerbResult | undefined {
    if (result.outcome === 'done') return undefined;
    const fell = result.outcome === 'failed' && (result.reason === 'fell' || result.reason === 'fallen');
    const when = settling ? ' after it, while it settled' : '';
    const why = result.outcome === 'stopped' ? `stopped${when}` : fell ? `${describeVerb(result)}${when} (tilted ${deg(tilt(after))}°)` : describeVerb(result);
    const ran = (result.ticks * PERIOD_MS) / 1000;
    // A verb refused while the duck was down never ran: no time to say.
    const took = result.ticks > 0 || result.outcome === 'stopped' ? ` in ${ran.toFixed(1)} s` : '';
    return { ok: false, summary: `${what}${took}: ${why}; ${this.view(after)}`, data: { ...this.viewData(after), tilt_deg: deg(tilt(after)), ran_s: round2(ran), ...(result.outcome === 'stopped' ? { stopped: true } : {}), ...(fell ? { fell: true } : {}) } };
  }

  /** The command the slot's manifest gives for this verb (policy/command.ts), or a refusal. */
  private command(slot: Slot, axis: Axis, direction: number, asked?: number): Commanded | VerbResult {
    return verbCommand(this.policies(slot), slot, axis, direction, asked);
  }

  private async walk(metres: number, halt: AbortSignal, speed?: number): Promise<VerbResult> {
    const c = this.command('walk', 'vx', metres, speed);
    if (!('axis' in c)) return c;
    const sent = { commanded_vx: round2(c.value) };
    // The gait stops short by what the settle after it carries (never below half the walk).
    const goal = Math.sign(metres) * Math.max(Math.abs(metres) / 2, Math.abs(metres) - (this.gaitSettleMs > 0 ? SETTLE_CARRY_M : 0));
    const driven = await this.drive('walk', { vx: c.value, vy: 0, vyaw: 0 }, { kind: 'distance', metres: goal }, timeLimitMs(metres, c), halt);
    const { before, after } = driven;
    const along = (after.trunk.x - before.trunk.x) * Math.cos(before.trunk.yaw) + (after.trunk.y - before.trunk.y) * Math.sin(before.trunk.yaw);
    this.walked += Math.abs(along);
    // A gait veers as it goes (the bundled walk up to 25° in a short walk): the yaw its IMU felt, so a pilot's reckoning can follow.
    const veer = { turned_deg: turnedDeg(before.trunk.yaw, after.trunk.yaw, 0) };
    const what = `walked ${along.toFixed(2)} m`;
    const failed = this.failed(driven, what);
    if (failed !== undefined) return { ...failed, data: { ...failed.data, ...sent, ...veer } };
    const short = Math.abs(along) < Math.abs(metres) * 0.8;
    // The policy skill ends a walk whose way is blocked; sim2d words it the same way.
    const blockedBy = short ? (metres >= 0 ? after.proximity.ahead : after.proximity.behind) : null;
    if (blockedBy !== null) return { ok: false, summary: `stopped after ${along.toFixed(2)} m: blocked by the ${blockedBy}; ${this.view(after)}`, data: { walked_m: round2(along), blocked_by: blockedBy, ...veer, ...sent, ...this.viewData(after) } };
    return { ok: !short, summary: `${what}${short ? ` of ${metres.toFixed(2)} m asked (time limit)` : ''}, ${c.text}; ${this.view(after)}`, data: { walked_m: round2(along), ...veer, ...sent, ...this.viewData(after) } };
  }

  /** `rate` in degrees per second, as the verb takes it. */
  private async turn(degrees: number, halt: AbortSignal, rate?: number): Promise<VerbResult> {
    const rad = (degrees * Math.PI) / 180;
    const c = this.command('turn', 'vyaw', rad, rate !== undefined ? (rate * Math.PI) / 180 : undefined);
    if (!('axis' in c)) return c;
    const sent = { commanded_vyaw: round2(c.value) };
    const driven = await this.drive('turn', { vx: 0, vy: 0, vyaw: c.value }, { kind: 'yaw', rad }, timeLimitMs(rad, c), halt);
    const { before, after } = driven;
    const turned = turnedDeg(before.trunk.yaw, after.trunk.yaw, rad);
    const what = `turned ${Math.abs(turned)}° ${turned >= 0 ? 'left' : 'right'}`;
    const failed = this.failed(driven, what);
    if (failed !== undefined) return { ...failed, data: { ...failed.data, ...sent } };
    const short = Math.abs(turned - degrees) > 15;
    return { ok: !short, summary: `${what}${short ? ` of ${degrees}° asked` : ''}, ${c.text}; ${this.view(after)}`, data: { turned_deg: turned, ...sent, ...this.viewData(after) } };
  }

  private async kick(foot: 'left' | 'right', halt: AbortSignal): Promise<VerbResult> {
    // The ball rolls on after the foot is back: stand while it does (in lock-step the twin's
    // time runs only during a verb, so a ball read at once would be frozen mid-roll).
    const driven = await this.drive(foot === 'left' ? 'kick_left' : 'kick_right', { vx: 0, vy: 0, vyaw: 0 }, { kind: 'duration' }, 5000, halt, KICK_SETTLE_MS);
    const { before, after } = driven;
    const moved = Math.hypot(after.ball.x - before.ball.x, after.ball.y - before.ball.y);
    const what = `kicked ${foot}`;
    const failed = this.failed(driven, what);
    if (failed !== undefined) return failed;
    if (moved < 0.02) return { ok: false, summary: `${what}: missed, the ball did not move`, data: { ball_moved_m: round2(moved) } };
    return { ok: true, summary: `ball moved ${moved.toFixed(2)} m`, data: { ball_moved_m: round2(moved), ball_displaced_m: this.metrics()['ball_displaced_m'] ?? 0 } };
  }

  private async searchScan(halt: AbortSignal): Promise<VerbResult> {
    if (this.eyes !== undefined) return this.cameraScan(this.eyes, halt);
    for (let i = 0; i < 360 / SCAN_STEP_DEG; i++) {
      const w = await this.sense();
      if (w.sees !== null) return { ok: true, summary: `ball found at bearing ${describeBearing(w.sees.bearing)}, ${w.sees.distance.toFixed(2)} m`, data: { ...this.viewData(w), turned_deg: i * SCAN_STEP_DEG } };
      // A stopped search found nothing: it never reads as a full turn with no ball.
      if (halt.aborted) return { ok: false, summary: `search stopped after ${i * SCAN_STEP_DEG}°: no ball in sight`, data: { ball_visible: false, turned_deg: i * SCAN_STEP_DEG, stopped: true } };
      const step = await this.turn(SCAN_STEP_DEG, halt);
      if (step.data?.['fell'] === true || step.data?.['stopped'] === true) return { ok: false, summary: `search stopped: ${step.summary}`, ...(step.data !== undefined ? { data: step.data } : {}) };
    }
    return { ok: true, summary: 'no ball in sight after a full turn', data: { ball_visible: false, turned_deg: 360 } };
  }

  /** search_scan through the head camera: the scan's turns are the twin's walked turns. */
  private async cameraScan(eyes: BodyEyes, halt: AbortSignal): Promise<VerbResult> {
    await this.sense();
    return cameraScan({
      camera: eyes.camera,
      look: eyes.ball,
      turn: async (degrees) => {
        if (halt.aborted) return { ok: false, summary: 'stopped', data: { stopped: true } };
        const step = await this.turn(degrees, halt);
        return step.data?.['fell'] === true || step.data?.['stopped'] === true ? step : undefined;
      },
    });
  }

  frame(): Frame {
    const w = this.world;
    return {
      state: {
        duck: { x: round2(w.trunk.x), y: round2(w.trunk.y), z: round2(w.trunk.z), heading_deg: deg(w.trunk.yaw), tilt_deg: deg(tilt(w)) },
        ball: { x: round2(w.ball.x), y: round2(w.ball.y) },
        ball_start: { x: round2(this.ballStart.x), y: round2(this.ballStart.y) },
        t_s: round2(w.t),
        torque: this.torque.value,
      },
    };
  }

  metrics(): Metrics {
    const w = this.world;
    return {
      ball_displaced_m: round2(Math.hypot(w.ball.x - this.ballStart.x, w.ball.y - this.ballStart.y)),
      quacks: this.quacks,
      tilt_deg: deg(tilt(w)),
      walked_m: round2(this.walked),
      torque: this.torque.value ? 1 : 0,
    };
  }

  stop(): Promise<void> {
    this.halt?.abort();
    this.loop.stop();
    return Promise.resolve();
  }

  async close(): Promise<void> {
    await this.eyes?.camera.close();
    return this.loop.close();
  }
}

/** `scene`: a layout of the caller's instead of the seed's (a test's ball in front of a foot). */
export async function createMujocoBody(options: BodyOptions, scene?: Sim2dLayout): Promise<MujocoBody> {
  const parsed = mujocoSettings.safeParse(options.settings ?? {});
  if (!parsed.success) throw new BodyError(`${KEY}: ${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? 'invalid settings'}`);
  const s = parsed.data;
  const policies = (slot: Slot): string => options.policies?.[slot] ?? bundledPolicyDir(slot);
  const model = userModel(s, policies('walk'));
  const loop = await ControlLoop.start({
    plant: {
      module: siblingModule(import.meta.url, 'control-plant').href,
      options: { seed: options.seed, ...(s.kp !== undefined ? { kp: s.kp } : {}), ...(scene !== undefined ? { layout: { duck: { ...scene.duck }, ball: { ...scene.ball } } } : {}), ...(model !== undefined ? { model: modelJson(model) } : {}) },
    },
    mode: s.pace,
    warm: skillWarmups(SLOTS.map(policies)),
    // The stand between verbs runs for as long as there are none: its time limit is never reached.
    idle: policySkill(policies('stand'), { vx: 0, vy: 0, vyaw: 0 }, { kind: 'duration' }, IDLE_LIMIT_MS),
    robot: options.robot ?? KEY,
    ...(options.events !== undefined ? { events: options.events } : {}),
  }).catch((err: unknown) => {
    // A model the twin refuses (missing, not compiling, lacking a joint) says why in one line.
    if (err instanceof ControlError && err.kind === 'plant') throw new BodyError(`${KEY}: ${err.message.replace(/^the plant could not be made: /, '')}`);
    throw err;
  });
  try {
    // Starting holds the pose the twin stands in; the first sense is the run's starting world.
    const parsedWorld = TwinWorldSchema.safeParse(await loop.sense());
    if (!parsedWorld.success) throw new BodyError(`${KEY}: the twin reported nothing it could be read from`);
    return new MujocoBody(loop, policies, parsedWorld.data, GAIT_SETTLE_MS, new SimTorque(options.robot, options.events), s.camera, s.heading_hold);
  } catch (err) {
    await loop.close();
    throw err;
  }
}
