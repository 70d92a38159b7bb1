/**
 * microduck:jsonrpc: a real Microduck behind the serial bridge, driven by the same 50 Hz control
 * loop as the MuJoCo twin. The loop's worker owns the serial port: the bridge plant
 * (control-plant.ts) opens the link and the BridgeClient there, so the heartbeat beats beside the
 * loop; this body reaches that client through a RemoteBridge (src/bridge/channel.ts) for hello,
 * state, quack and torque, and runs walk, turn and kick as policy verbs in the loop. Opening says
 * hello (and never switches torque on: nothing moves because a process started); a motion verb
 * switches torque on first (the firmware then holds the pose it finds). search_scan needs a
 * camera, which the bridge does not carry: without a `camera:` setting it is refused, never
 * answered with an invented sighting; with one (a camera of its own, beside the bridge, which
 * `snapshot` reads too) it turns in 30° steps with its turn skill and looks after each.
 *
 * A lost link ends the run with a BodyError: by then the firmware's 200 ms watchdog has usually
 * cut torque. A stop that could not be sent while the link was down is owed, and sent first
 * thing once the link is back (owed-stop.ts). While anyone listens (onTrouble), and during every
 * motion verb, the body watches the link (link-watch.ts): a detach, or a state stream that goes
 * stale and a firmware that does not answer either, is reported as `link-lost`; a firmware
 * `fault` notification as `fault`; either stops a running verb
 * on the loop's next tick. So does a stop (the caller's signal, stop()) at any moment of a motion
 * verb, from its first question to the firmware to its last tick: a stop before torque is on
 * leaves it off, and the result says what was done (the time the policy ran, the targets sent).
 * A verb that sent no target never reads as done. Each run after the first says hello again, so the run knows which boot
 * of the firmware it talks to (`link`): a firmware that restarted behind a port that stayed has a
 * new boot id.
 *
 * After a fall the loop ends the verb and the body makes the duck safe (after-fall.ts). The worker
 * reopens a link that was lost; the body stays lost for the rest of the run (the run ends on it,
 * and the pool opens the robot afresh), while a body that lost its link between runs is used
 * again by the next run once its hello says who answers now: the same boot (a blip) or a new one.
 *
 * Settings (BodyOptions.settings): { port: string, baud?: number, policies?: {slot: dir}, after_fall?: limp | hold }.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { RemoteBridge, type BridgeLink } from '../../../bridge/channel.js';
import { DEFAULT_TIMEOUT_MS } from '../../../bridge/client.js';
import { RpcError } from '../../../bridge/errors.js';
import { DEFAULT_BAUD, type BridgeState, type Fault, type Hello } from '../../../bridge/protocol.js';
import { ControlLoop } from '../../../control/control-loop.js';
import { ControlError } from '../../../control/errors.js';
import { DEFAULT_FALL, type FallSettings } from '../../../control/fall.js';
import { describeVerb, type VerbResult as LoopResult } from '../../../control/skill.js';
import { policySkill, skillWarmups, type PolicyUntil } from '../../../control/skills/specs.js';
import { bundledPolicyDir } from '../../../policy/bundled.js';
import { commandFor, timeLimitMs, timedWalk, type Axis, type Commanded } from '../../../policy/command.js';
import { readManifest } from '../../../policy/read-manifest.js';
import { SLOTS, type Slot } from '../../../policy/slots.js';
import { LentPolicies } from '../lent-policies.js';
import { siblingModule } from '../../../worker-thread.js';
import { BodyError, type Body, type BodyEyes, type BodyLink, type BodyTrouble, type BodyOptions, type Frame, type Intent, type Metrics, type Observation, type VerbResult } from '../../body.js';
import { DEFAULT_AFTER_FALL, fallResult, isFall } from './after-fall.js';
import { LinkFactsSchema, type LinkFacts } from './control-plant.js';
import { describeState, stateMetrics, tiltDeg } from './describe-state.js';
import { greet } from './greet.js';
import { LinkWatch } from './link-watch.js';
import { OwedStop } from './owed-stop.js';
import { reportBody } from './report.js';
import { torqueResult } from '../torque.js';
import { JSONRPC_KEY, REFUSED, jsonRpcSettings } from './settings.js';
import { turnedDeg } from '../heading.js';
import type { HeadingHoldSettings } from '../../../control/skills/heading-hold.js';
import { logger } from '../../../log.js';
import { cameraEyes } from '../../camera-eyes.js';
import { cameraGlance, cameraScan } from '../../camera-scan.js';
import { KICK_SETTLE_MS, settleAfterGait, standAfter } from '../gait-settle.js';
import { BallReckoning } from '../ball-reckoning.js';
import { ballAfterKick, ballMoved } from './kick-look.js';
import { CameraError } from '../../../camera/camera.js';
import { detectBall, type BallSighting } from '../../../vision/ball.js';

export { greet } from './greet.js';
export { JSONRPC_KEY } from './settings.js';

/** A streamed state older than this is stale; observe() asks for a fresh one. */
const STALE_STATE_MS = 250;

const torqueArgs = z.object({ on: z.boolean() });

/** How long past its own time limit a verb may run before the body stops the loop itself. */
const VERB_GRACE_MS = 3000;


/** The control loop a body drives its motion verbs with, where each policy slot's folder is, and what it counts as a fall. */
export interface JsonRpcControl {
  readonly loop: ControlLoop;
  readonly policies: (slot: Slot) => string;
  readonly fall: FallSettings;
  /** A straight walk's heading hold (the robot's `heading_hold`): the defaults when undefined. */
  readonly headingHold?: HeadingHoldSettings | false;
}

/** The loop's period, 50 Hz: a verb's ticks in seconds. */
const PERIOD_MS = 20;

/** Describes a close hook so the body can be built on any connected client (serial or a test stream). */
export interface JsonRpcLink {
  readonly label: string;
  close(): Promise<void>;
}

export class JsonRpcBody implements Body {
  readonly key = JSONRPC_KEY;
  private closed = false;
  /** A verb changed the firmware's state since the last state arrived: the cached one is old news. */
  private acted = false;
  /** How far the camera saw this run's last measured kick move the ball (a camera's duck only). */
  private displaced: number | undefined;
  /** Quacks this body made since it opened: the firmware's own count runs from its boot. */
  private quacks = 0;
  private readonly listeners = new Set<(trouble: BodyTrouble) => void>();
  /** The hello that opened the body is the first run's: only later runs say hello again. */
  private greeted = true;
  /** Lost and back: who answers at the far end, and whether anyone does. */
  private readonly linkWatch: LinkWatch;
  /** A stop that could not reach the firmware (the link was down): sent again as soon as it is back. */
  private readonly owedStop: OwedStop;

  /** A motion verb is under way (from before torque on to its last tick): trouble and stop() end it. */
  private driving: AbortController | undefined;
  /** Where the ball is reckoned from the last sighting (a camera's duck only). */
  private readonly reckoning: BallReckoning | undefined;
  /** Each slot's folder for this run: the pool lends them at every lease. */
  private readonly lent: LentPolicies;

  constructor(
    private readonly client: BridgeLink,
    hello: Hello,
    private readonly port: JsonRpcLink,
    /** Without one (a body built by hand on a client) the motion verbs are refused. */
    private readonly control?: JsonRpcControl,
    /** The duck's camera (its `camera:` setting), for `snapshot`; none without the setting. */
    readonly eyes?: BodyEyes,
  ) {
    this.reckoning = eyes === undefined ? undefined : new BallReckoning();
    this.lent = new LentPolicies(control?.policies ?? bundledPolicyDir, control?.loop);
    const closed = (): boolean => this.closed;
    this.linkWatch = new LinkWatch(client, port.label, hello, closed, (trouble) => this.report(trouble));
    this.owedStop = new OwedStop(client, this.linkWatch, closed);
    client.on('state', () => {
      this.acted = false;
    });
    client.on('fault', (fault) => {
      if (!this.closed) this.report({ kind: 'fault', message: faultLine(fault) });
    });
    // A verb's fall is its result; one between verbs (the loop went limp, or holds) is trouble.
    control?.loop.onFall(({ tiltRad }) => {
      if (!this.closed) this.report({ kind: 'fell', message: `fell between verbs (tilted ${Math.round((tiltRad * 180) / Math.PI)}°); ${control.fall.then === 'limp' ? 'torque off' : 'holding its last pose'}` });
    });
  }

  onTrouble(listener: (trouble: BodyTrouble) => void): () => void {
    this.listeners.add(listener);
    this.linkWatch.start();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopWatch();
    };
  }

  /**
   * The firmware's state, and with a camera what it sees now (the pilot's only way to know where
   * the ball is), the kicks' reach, and whether the reckoning puts the ball at a foot.
   */
  async observe(): Promise<Observation> {
    const state = await this.freshState();
    if (this.eyes === undefined || this.reckoning === undefined) return { summary: describeState(state), data: { ...state } };
    const glance = await cameraGlance(this.eyes.camera, this.eyes.ball);
    const reckoned = this.reckoning.data(glance.seen !== undefined ? this.reckoning.saw(glance.seen) : undefined);
    const foot = reckoned['ball_in_reach'];
    const atFoot = foot === 'left' || foot === 'right' ? `; reckoned at the ${foot} foot` : '';
    return { summary: `${describeState(state)}; ${glance.summary}${atFoot}`, data: { ...state, ...glance.data, ...reckoned } };
  }

  async perform(intent: Intent, signal?: AbortSignal): Promise<VerbResult> {
    const refused = intent.verb === 'search_scan' && this.eyes !== undefined ? undefined : REFUSED[intent.verb];
    if (refused !== undefined) return { ok: false, summary: `${intent.verb} ${refused} on ${JSONRPC_KEY}` };
    if (signal?.aborted === true) return { ok: false, summary: `${intent.verb} cancelled before it was sent` };
    this.assertLinked();
    logger('body').debug({ body: JSONRPC_KEY, verb: intent.verb, port: this.port.label }, 'body: sending');
    try {
      if (intent.verb === 'walk') return await this.walk(intent.args.metres, intent.args.speed, signal);
      if (intent.verb === 'turn') return await this.turn(intent.args.degrees, intent.args.rate, signal);
      if (intent.verb === 'kick') return await this.kick(intent.args.foot, signal);
      if (intent.verb === 'search_scan' && this.eyes !== undefined) return await this.searchScan(this.eyes, signal);
      if (intent.verb === 'quack') {
        await this.client.quack();
        this.quacks += 1;
        await this.settle();
        return { ok: true, summary: 'quacked', data: { quacks: this.quacks } };
      }
      if (intent.verb === 'torque') {
        const args = torqueArgs.safeParse(intent.args);
        if (!args.success) return { ok: false, summary: 'torque needs on: true or false' };
        const r = await this.client.torque(args.data.on);
        await this.settle();
        return torqueResult(r.torque);
      }
    } catch (err) {
      if (err instanceof RpcError) return { ok: false, summary: `${intent.verb}: ${err.remoteMessage}` };
      throw this.linkWatch.error(err);
    }
    return { ok: false, summary: `${intent.verb} is not a verb of ${JSONRPC_KEY}` };
  }

  /**
   * search_scan through the duck's camera: its turn skill in 30° steps, a look after each. A turn
   * the gyro says fell short is looked from all the same (the camera sees where the duck faces);
   * a fall or a stop ends the scan.
   */
  private searchScan(eyes: BodyEyes, signal?: AbortSignal): Promise<VerbResult> {
    return cameraScan({ camera: eyes.camera, look: eyes.ball, turn: (degrees) => this.scanTurn(degrees, signal) });
  }

  /** One step of a camera scan: nothing when it turned, else the result that ends the scan. */
  private async scanTurn(degrees: number, signal?: AbortSignal): Promise<VerbResult | undefined> {
    if (signal?.aborted === true) return { ok: false, summary: 'stopped', data: { stopped: true } };
    const step = await this.turn(degrees, undefined, signal);
    return step.data?.['fell'] === true || step.data?.['stopped'] === true || step.data?.['turned_deg'] === undefined ? step : undefined;
  }

  /** The yaw the plant has integrated from the gyro since the body opened (radians, left +), when it says. */
  async yawRad(): Promise<number | undefined> {
    return this.control === undefined ? undefined : (await this.facts(this.control.loop))?.yaw_rad;
  }

  /** What the plant in the loop's worker says about the link (sent targets, integrated yaw, faults). */
  private async facts(loop: ControlLoop): Promise<LinkFacts | undefined> {
    const parsed = LinkFactsSchema.safeParse(await loop.sense().catch(() => null));
    return parsed.success ? parsed.data : undefined;
  }

  /**
   * One policy verb in the loop: torque on first (the firmware holds the pose it finds), then the
   * policy until `until` or its time limit. Trouble on the link (report) or the caller's signal
   * stops it; a lost link then ends the run as any verb does, with a BodyError.
   */
  private async drive(verb: string, slot: Slot, command: { vx: number; vy: number; vyaw: number }, until: PolicyUntil, timeoutMs: number, signal?: AbortSignal): Promise<{ result: LoopResult; before: LinkFacts | undefined; after: LinkFacts | undefined } | VerbResult> {
    const control = this.control;
    if (control === undefined) return { ok: false, summary: `${verb} needs the control loop, and this ${JSONRPC_KEY} body was opened without one` };
    if (this.linkWatch.hello.state_hz <= 0) return { ok: false, summary: `${verb} needs the firmware's state stream, and it streams none (state_hz 0)` };
    const { loop } = control;
    // The verb's own stop, open before its first await: a stop that comes while torque switches
    // on or the first reading is asked for is this verb's, never one the loop takes for the last.
    const halt = new AbortController();
    const stop = (): void => halt.abort();
    signal?.addEventListener('abort', stop, { once: true });
    this.driving = halt;
    this.linkWatch.start();
    let before: LinkFacts | undefined;
    let result: LoopResult;
    // The skill's own time limit runs on ticks; a loop that ticks no skill (no fresh state) must still end.
    const guard = setTimeout(stop, timeoutMs + VERB_GRACE_MS);
    try {
      const state = await this.freshState();
      // A duck lying down is not stiffened for a verb the loop will refuse (`fallen`) anyway.
      const down = tiltDeg(state) > (control.fall.tiltRad * 180) / Math.PI;
      if (!state.torque && !down && !halt.signal.aborted) await this.client.torque(true);
      before = await this.facts(loop);
      result = await loop.run(policySkill(this.policyDir(slot), command, until, timeoutMs, control.headingHold), halt.signal);
      result = await settleAfterGait(loop, this.policyDir('stand'), slot, result, halt.signal);
      // A camera's duck stands while the ball rolls on, so the look after a kick sees where it stopped.
      if (this.eyes !== undefined && (slot === 'kick_left' || slot === 'kick_right')) result = await standAfter(loop, this.policyDir('stand'), KICK_SETTLE_MS, result, halt.signal);
    } catch (err) {
      if (err instanceof ControlError) throw new BodyError(`${verb}: ${err.message}`);
      throw err;
    } finally {
      clearTimeout(guard);
      signal?.removeEventListener('abort', stop);
      this.driving = undefined;
      this.stopWatch();
    }
    this.assertLinked();
    const after = await this.facts(loop);
    await this.settle();
    return { result, before, after };
  }

  /** How a verb that did not finish ended; `asked` names it for a fall (`walk 2.00 m`), `what` says how far it got otherwise. */
  private async failed(r: { result: LoopResult; before: LinkFacts | undefined; after: LinkFacts | undefined }, asked: string, what: string): Promise<VerbResult | undefined> {
    const { result } = r;
    if (result.outcome === 'done') return undefined;
    const sent = this.sentData(r.before, r.after);
    if (isFall(result) && this.control !== undefined) {
      const fell = await fallResult(asked, result, PERIOD_MS, this.tilt(), this.client, this.control.fall.then);
      await this.settle();
      return { ...fell, data: { ...fell.data, ...sent } };
    }
    const why = result.outcome === 'stopped' ? 'stopped' : describeVerb(result);
    return { ok: false, summary: `${what}: ${why}`, data: { tilt_deg: this.tilt(), ran_s: ranSeconds(result), ...sent, ...(result.outcome === 'stopped' ? { stopped: true } : {}) } };
  }

  /** A verb that ended as asked but moved nothing (torque off, every target refused) is no success: undefined when it sent some. */
  private unsent(r: { before: LinkFacts | undefined; after: LinkFacts | undefined }, what: string): VerbResult | undefined {
    const sent = this.sentData(r.before, r.after);
    if ((sent['targets_sent'] ?? 0) > 0) return undefined;
    const why = sent['targets_sent'] === undefined ? 'whether any target reached the firmware is unknown' : 'no target reached the firmware (was torque switched off?)';
    return { ok: false, summary: `${what}: ${why}`, data: { tilt_deg: this.tilt(), ...sent } };
  }

  private tilt(): number {
    const last = this.client.lastState();
    return last !== undefined ? Math.round(stateMetrics(last.state)['tilt_deg'] ?? 0) : 0;
  }

  private sentData(before: LinkFacts | undefined, after: LinkFacts | undefined): Record<string, number> {
    if (before === undefined || after === undefined) return {};
    return { targets_sent: after.sent - before.sent, target_send_failures: after.send_failures - before.send_failures };
  }

  /** The command the slot's manifest gives for this verb (policy/command.ts), or a refusal. */
  private command(slot: Slot, axis: Axis, direction: number, asked?: number): Commanded | VerbResult {
    const dir = this.control !== undefined ? this.policyDir(slot) : undefined;
    const c = commandFor(dir !== undefined ? readManifest(dir).manifest : undefined, axis, direction, asked);
    return typeof c === 'string' ? { ok: false, summary: `${slot}: ${c}` } : c;
  }

  /**
   * The bridge carries no odometry: a walk ends on its time (timedWalk: at the speed the policy
   * makes good, not the one it is sent: timed by 0.3 m/s the duck on the twin-backed firmware
   * went 0.43 m of 1.0) and says so.
   */
  private async walk(metres: number, speed: number | undefined, signal?: AbortSignal): Promise<VerbResult> {
    const c = this.command('walk', 'vx', metres, speed);
    if (!('axis' in c)) return c;
    const timed = timedWalk(c, metres);
    const r = await this.drive('walk', 'walk', { vx: c.value, vy: 0, vyaw: 0 }, { kind: 'distance', metres }, timed.ms, signal);
    if (!('result' in r)) return r;
    // The time the policy ran, not the time planned: a stopped walk says how far it got.
    const ran = ranSeconds(r.result);
    const veerRad = r.before !== undefined && r.after !== undefined ? r.after.yaw_rad - r.before.yaw_rad : 0;
    this.reckoning?.walked(timed.estimate(ran), veerRad);
    const what = `walked ${ran.toFixed(1)} s`;
    const whatAt = `${what} at ${Math.abs(c.value).toFixed(2)} m/s`;
    const failed = (await this.failed(r, `walk ${metres.toFixed(2)} m`, whatAt)) ?? this.unsent(r, whatAt);
    if (failed !== undefined) return { ...failed, data: { ...failed.data, commanded_vx: c.value } };
    // How far is reckoned, not measured; the yaw the gyro felt is how much the gait veered, so a pilot's reckoning can follow.
    const veer = r.before !== undefined && r.after !== undefined ? { turned_deg: turnedDeg(r.before.yaw_rad, r.after.yaw_rad, 0) } : {};
    return { ok: true, summary: `${whatAt} (no odometry on the bridge: ${timed.about(ran)}), ${c.text}`, data: { walked_s: ran, estimated_m: timed.estimate(ran), ...veer, commanded_vx: c.value, ...this.sentData(r.before, r.after) } };
  }

  /** Ends on the yaw the plant integrates from the gyro, or on its time limit; `rate` in degrees per second. */
  private async turn(degrees: number, rate: number | undefined, signal?: AbortSignal): Promise<VerbResult> {
    const rad = (degrees * Math.PI) / 180;
    const c = this.command('turn', 'vyaw', rad, rate !== undefined ? (rate * Math.PI) / 180 : undefined);
    if (!('axis' in c)) return c;
    const r = await this.drive('turn', 'turn', { vx: 0, vy: 0, vyaw: c.value }, { kind: 'yaw', rad }, timeLimitMs(rad, c), signal);
    if (!('result' in r)) return r;
    if (r.before !== undefined && r.after !== undefined) this.reckoning?.turned(r.after.yaw_rad - r.before.yaw_rad);
    const turned = r.before !== undefined && r.after !== undefined ? turnedDeg(r.before.yaw_rad, r.after.yaw_rad, rad) : undefined;
    const what = turned === undefined ? 'turned (yaw unknown)' : `turned ${Math.abs(turned)}° ${turned >= 0 ? 'left' : 'right'} (gyro)`;
    const failed = (await this.failed(r, `turn ${degrees}°`, what)) ?? this.unsent(r, what);
    if (failed !== undefined) return { ...failed, data: { ...failed.data, commanded_vyaw: c.value } };
    const short = turned === undefined || Math.abs(turned - degrees) > 15;
    return { ok: !short, summary: `${what}${short ? ` of ${degrees}° asked (time limit)` : ''}, ${c.text}`, data: { ...(turned !== undefined ? { turned_deg: turned } : {}), commanded_vyaw: c.value, ...this.sentData(r.before, r.after) } };
  }

  /**
   * The kick policy for its duration. With a camera, the ball is looked for just before and, once
   * it has stopped rolling, just after; how far it moved between the two (the after turned back by
   * the yaw the gyro says the kick turned) is the kick's `ball_moved_m` and the run's
   * `ball_displaced_m`. A ball at the feet is under a head camera: before the kick it is where
   * the reckoning put it (from the last sighting through the walks and turns since), and the
   * result says so. Without a camera, or with the ball nowhere either time, whether it moved is
   * not measured, and said.
   */
  private async kick(foot: 'left' | 'right', signal?: AbortSignal): Promise<VerbResult> {
    const seenBefore = this.eyes === undefined ? undefined : await this.sighting(this.eyes);
    const reckoned = this.reckoning?.reckoned();
    const r = await this.drive('kick', foot === 'left' ? 'kick_left' : 'kick_right', { vx: 0, vy: 0, vyaw: 0 }, { kind: 'duration' }, 5000, signal);
    if (!('result' in r)) return r;
    this.reckoning?.forget();
    const what = `kicked ${foot}`;
    const failed = (await this.failed(r, `kick ${foot}`, what)) ?? this.unsent(r, what);
    if (failed !== undefined) return failed;
    if (this.eyes === undefined || this.reckoning === undefined) return { ok: true, summary: `${what} (no camera on the bridge: whether the ball moved is not measured)`, data: this.sentData(r.before, r.after) };
    const before = typeof seenBefore === 'object' ? this.reckoning.fromTrunk(seenBefore) : reckoned;
    const eyes = this.eyes;
    const looking = { sighting: () => this.sighting(eyes), scan: () => this.searchScan(eyes, signal), yaw: () => this.yawRad() };
    const after = typeof seenBefore === 'string' || before === undefined ? undefined : await ballAfterKick(looking, this.reckoning, r.before?.yaw_rad, signal);
    if (typeof seenBefore === 'string' || typeof after === 'string' || before === undefined || after === undefined) {
      const why = typeof seenBefore === 'string' ? seenBefore : typeof after === 'string' ? after : `the camera did not see the ball ${before === undefined ? 'before' : 'after'} it`;
      return { ok: true, summary: `${what} (${why}: whether the ball moved is not measured)`, data: this.sentData(r.before, r.after) };
    }
    const moved = ballMoved(before, after.spot, after.turned);
    this.displaced = Math.round(moved * 100) / 100;
    const how = `${seenBefore === undefined ? 'camera after; before, where the reckoning put it' : 'camera, before and after'}${after.scanned ? '; found after it by a scan' : ''}`;
    return { ok: true, summary: `ball moved ${moved.toFixed(2)} m (${how})`, data: { ball_moved_m: this.displaced, ball_displaced_m: this.displaced, measured_by: seenBefore === undefined ? 'camera and reckoning' : 'camera', ...(after.scanned ? { turned_deg: Math.round((after.turned * 180) / Math.PI) } : {}), ...this.sentData(r.before, r.after) } };
  }

  /** The ball as the camera sees it now, nothing when it is out of view, or the camera's one line when it failed. */
  private async sighting(eyes: BodyEyes): Promise<BallSighting | undefined | string> {
    try {
      return detectBall(await eyes.camera.grab(), eyes.ball);
    } catch (error) {
      if (error instanceof CameraError) return error.message;
      throw error;
    }
  }

  get link(): BodyLink {
    const { firmware, board, boot } = this.linkWatch.hello;
    return { device: this.port.label, firmware, board, boot };
  }

  usePolicies(dirs: Readonly<Record<string, string>>): void {
    this.lent.use(dirs);
  }

  private policyDir(slot: Slot): string {
    return this.lent.dir(slot);
  }

  /**
   * Per-run counters start again, and a held body asks who is at the far end now (link-watch.ts:
   * a firmware that restarted, or a link lost since the last run and reopened by the worker).
   */
  async beginRun(): Promise<void> {
    this.quacks = 0;
    this.displaced = undefined;
    this.reckoning?.forget();
    // A policy swapped since the last run is warm before the run's first verb (lent-policies.ts).
    await this.lent.ready();
    if (this.greeted && this.linkWatch.lost === undefined) {
      this.greeted = false;
      return;
    }
    this.greeted = false;
    if (this.closed) throw new BodyError(`${JSONRPC_KEY} is closed`);
    // A state cached before is not this link's, or not this firmware's.
    if (await this.linkWatch.rejoin()) this.acted = true;
  }

  frame(): Frame {
    return { state: { ...(this.client.lastState()?.state ?? {}) } };
  }

  metrics(): Metrics {
    const last = this.client.lastState();
    const c = this.client.counters();
    return { ...(last ? stateMetrics(last.state) : {}), quacks: this.quacks, ...(this.displaced !== undefined ? { ball_displaced_m: this.displaced } : {}), link_crc_errors: c.crc, link_dropped_frames: c.crc + c.malformed + c.overlong + c.runt };
  }

  /**
   * Torque off, confirmed by the firmware, or a BodyError that says why not (the run's
   * transcript records it): a dead link must never read as a clean stop.
   */
  async stop(): Promise<void> {
    // A motion verb under way ends at the loop's next tick, whatever it was doing when this came.
    this.driving?.abort();
    await this.owedStop.send();
  }

  get stopOwed(): boolean {
    return this.owedStop.owing;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.linkWatch.stop();
    // Best effort here: a caller that needs to know whether torque went off calls stop() first.
    await this.stop().catch(() => undefined);
    this.closed = true;
    this.client.close();
    await this.port.close();
    await this.control?.loop.close();
    await this.eyes?.camera.close();
  }

  /**
   * After a verb, fetch the state it left, so that the frame, the metrics a success check reads
   * and the next observation all include it (a streamed state can predate it by a whole period).
   * Best effort: if this fails, `acted` stays set and the next observe() asks again.
   */
  private async settle(): Promise<void> {
    this.acted = true;
    await this.freshState().catch(() => undefined);
  }

  private async freshState(): Promise<BridgeState> {
    this.assertLinked();
    const last = this.client.lastState();
    if (!this.acted && last !== undefined && last.ageMs <= STALE_STATE_MS) return last.state;
    try {
      const state = await this.client.getState();
      this.acted = false;
      return state;
    } catch (err) {
      throw this.linkWatch.error(err);
    }
  }

  private assertLinked(): void {
    if (this.closed) throw new BodyError(`${JSONRPC_KEY} is closed`);
    const lost = this.linkWatch.lost;
    if (lost !== undefined) throw this.linkWatch.error(lost);
  }

  private report(trouble: BodyTrouble): void {
    // A verb in the loop ends on its next tick: the pilot hears the trouble, not a finished walk.
    this.driving?.abort();
    for (const listener of [...this.listeners]) listener(trouble);
  }

  /** The stream is watched while anyone listens or a motion verb runs. */
  private stopWatch(): void {
    if (this.listeners.size > 0 || this.driving !== undefined) return;
    this.linkWatch.stop();
  }
}

/** How long a verb's policy ran, in seconds to a tenth: its ticks on the loop's grid. */
function ranSeconds(result: LoopResult): number {
  return Math.round((result.ranMs ?? result.ticks * PERIOD_MS) / 100) / 10;
}

/** `firmware fault (watchdog): no heartbeat within the watchdog period: torque off`. */
function faultLine(fault: Fault): string {
  return `firmware fault (${fault.code}): ${fault.message}${fault.torque || /torque off/.test(fault.message) ? '' : '; torque off'}`;
}

/**
 * `eyes`: a camera of the caller's instead of the `camera:` setting's (a test rig's synthetic
 * camera, rendering a room from the yaw the duck's gyro reports).
 */
export async function createJsonRpcBody(options: BodyOptions, eyes?: BodyEyes): Promise<JsonRpcBody> {
  const settings = jsonRpcSettings.safeParse(options.settings ?? {});
  if (!settings.success) {
    if (settings.error.issues.some((i) => i.path[0] === 'baud')) {
      throw new BodyError(`${JSONRPC_KEY}: --baud must be a positive whole number (default ${DEFAULT_BAUD})`);
    }
    if (settings.error.issues.some((i) => i.path[0] === 'policies')) {
      throw new BodyError(`${JSONRPC_KEY}: policies: ${settings.error.issues[0]?.message ?? 'invalid'} (slots: walk, turn, stand, kick_left, kick_right)`);
    }
    throw new BodyError(`${JSONRPC_KEY} needs a serial port: pass --port /dev/serial/by-id/<your duck> (and --baud if not ${DEFAULT_BAUD})`);
  }
  const { port, baud = DEFAULT_BAUD } = settings.data;
  const fall: FallSettings = { ...DEFAULT_FALL, then: settings.data.after_fall ?? DEFAULT_AFTER_FALL };
  // The port is opened in the loop's worker (control-plant.ts); this thread talks to it here.
  const channel = `quackd-bridge-${randomUUID()}`;
  const policies = (slot: Slot): string => options.policies?.[slot] ?? settings.data.policies?.[slot] ?? bundledPolicyDir(slot);
  let loop: ControlLoop;
  try {
    loop = await ControlLoop.start({
      plant: { module: siblingModule(import.meta.url, 'control-plant').href, options: { port, baud, channel } },
      periodMs: PERIOD_MS,
      fall,
      warm: skillWarmups(SLOTS.map(policies)),
      robot: options.robot ?? JSONRPC_KEY,
      ...(options.events !== undefined ? { events: options.events } : {}),
    });
  } catch (err) {
    if (err instanceof ControlError) throw new BodyError(err.message.replace(/^the plant could not be made: /, ''));
    throw err;
  }
  const remote = new RemoteBridge(channel, DEFAULT_TIMEOUT_MS);
  try {
    const facts = LinkFactsSchema.safeParse(await loop.sense());
    if (!facts.success) throw new BodyError(`${JSONRPC_KEY}: the bridge plant reported nothing it could be read from`);
    // The plant said hello already; the full hello (joints, limits) is asked again here.
    const hello = await greet(remote, port);
    const seeing = eyes ?? (settings.data.camera === undefined ? undefined : await cameraEyes(JSONRPC_KEY, settings.data.camera));
    const body = new JsonRpcBody(remote, hello, { label: port, close: () => remote.closeLink() }, { loop, policies, fall, headingHold: settings.data.heading_hold }, seeing);
    if (options.events !== undefined) reportBody(remote, body, options.robot ?? JSONRPC_KEY, options.events);
    return body;
  } catch (err) {
    remote.close();
    await loop.close();
    throw err;
  }
}
