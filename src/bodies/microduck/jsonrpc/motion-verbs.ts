/**
 * A jsonrpc duck's motion verbs: walk, turn and kick as policies in the loop (verb-drive.ts), and
 * with a camera search_scan, its turns in 30° steps with a look after each. What each says is
 * what the bridge can know: no odometry (a walk ends on its time and says so), the yaw the plant
 * integrates from the gyro, the targets that reached the firmware (a verb that sent none never
 * reads as done), and with a camera how far a kick moved the ball. After a fall the body makes
 * the duck safe (after-fall.ts) and the result says so.
 */
import type { BridgeLink } from '../../../bridge/channel.js';
import { describeVerb } from '../../../control/skill.js';
import { CameraError } from '../../../camera/camera.js';
import { timeLimitMs, timedWalk, type Axis, type Commanded } from '../../../policy/command.js';
import type { Slot } from '../../../policy/slots.js';
import { detectBall, type BallSighting } from '../../../vision/ball.js';
import type { BodyEyes, VerbResult } from '../../body.js';
import { cameraScan } from '../../camera-scan.js';
import type { BallReckoning } from '../ball-reckoning.js';
import { turnedDeg } from '../heading.js';
import type { LentPolicies } from '../lent-policies.js';
import { ranSeconds, verbCommand } from '../policy-verb.js';
import { fallResult, isFall } from './after-fall.js';
import type { LinkFacts } from './control-plant.js';
import { stateMetrics } from './describe-state.js';
import { ballAfterKick, ballMoved } from './kick-look.js';
import { PERIOD_MS, linkFacts, type Driven, type JsonRpcControl, type VerbDrive } from './verb-drive.js';

export class MotionVerbs {
  /** How far the camera saw this run's last measured kick move the ball (a camera's duck only). */
  displaced: number | undefined;

  constructor(
    private readonly client: BridgeLink,
    private readonly drive: VerbDrive,
    private readonly lent: LentPolicies,
    private readonly control: JsonRpcControl | undefined,
    private readonly eyes: BodyEyes | undefined,
    /** Where the ball is reckoned from the last sighting (a camera's duck only). */
    private readonly reckoning: BallReckoning | undefined,
    /** The state a verb left, fetched (body.settle). */
    private readonly settle: () => Promise<void>,
  ) {}

  /** The yaw the plant has integrated from the gyro since the body opened (radians, left +), when it says. */
  async yawRad(): Promise<number | undefined> {
    return this.control === undefined ? undefined : (await linkFacts(this.control.loop))?.yaw_rad;
  }

  /**
   * search_scan through the duck's camera: its turn skill in 30° steps, a look after each. A turn
   * the gyro says fell short is looked from all the same (the camera sees where the duck faces);
   * a fall or a stop ends the scan.
   */
  searchScan(eyes: BodyEyes, signal?: AbortSignal): Promise<VerbResult> {
    return cameraScan({ camera: eyes.camera, look: eyes.ball, turn: (degrees) => this.scanTurn(degrees, signal) });
  }

  /** One step of a camera scan: nothing when it turned, else the result that ends the scan. */
  private async scanTurn(degrees: number, signal?: AbortSignal): Promise<VerbResult | undefined> {
    if (signal?.aborted === true) return { ok: false, summary: 'stopped', data: { stopped: true } };
    const step = await this.turn(degrees, undefined, signal);
    return step.data?.['fell'] === true || step.data?.['stopped'] === true || step.data?.['turned_deg'] === undefined ? step : undefined;
  }

  /** How a verb that did not finish ended; `asked` names it for a fall (`walk 2.00 m`), `what` says how far it got otherwise. */
  private async failed(r: Driven, asked: string, what: string): Promise<VerbResult | undefined> {
    const { result } = r;
    if (result.outcome === 'done') return undefined;
    const sent = this.sentData(r.before, r.after);
    if (isFall(result) && this.control !== undefined) {
      const fell = await fallResult(asked, result, PERIOD_MS, this.tilt(), this.client, this.control.fall.then);
      await this.settle();
      return { ...fell, data: { ...fell.data, ...sent } };
    }
    const why = result.outcome === 'stopped' ? 'stopped' : describeVerb(result);
    return { ok: false, summary: `${what}: ${why}`, data: { tilt_deg: this.tilt(), ran_s: ranSeconds(result, PERIOD_MS), ...sent, ...(result.outcome === 'stopped' ? { stopped: true } : {}) } };
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
    return verbCommand(this.control !== undefined ? this.lent.dir(slot) : undefined, slot, axis, direction, asked);
  }

  /**
   * The bridge carries no odometry: a walk ends on its time (timedWalk: at the speed the policy
   * makes good, not the one it is sent: timed by 0.3 m/s the duck on the twin-backed firmware
   * went 0.43 m of 1.0) and says so.
   */
  async walk(metres: number, speed: number | undefined, signal?: AbortSignal): Promise<VerbResult> {
    const c = this.command('walk', 'vx', metres, speed);
    if (!('axis' in c)) return c;
    const timed = timedWalk(c, metres);
    const r = await this.drive.run({ verb: 'walk', slot: 'walk', command: { vx: c.value, vy: 0, vyaw: 0 }, until: { kind: 'distance', metres }, timeoutMs: timed.ms }, signal);
    if (!('result' in r)) return r;
    // The time the policy ran, not the time planned: a stopped walk says how far it got.
    const ran = ranSeconds(r.result, PERIOD_MS);
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
  async turn(degrees: number, rate: number | undefined, signal?: AbortSignal): Promise<VerbResult> {
    const rad = (degrees * Math.PI) / 180;
    const c = this.command('turn', 'vyaw', rad, rate !== undefined ? (rate * Math.PI) / 180 : undefined);
    if (!('axis' in c)) return c;
    const r = await this.drive.run({ verb: 'turn', slot: 'turn', command: { vx: 0, vy: 0, vyaw: c.value }, until: { kind: 'yaw', rad }, timeoutMs: timeLimitMs(rad, c) }, signal);
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
  async kick(foot: 'left' | 'right', signal?: AbortSignal): Promise<VerbResult> {
    const seenBefore = this.eyes === undefined ? undefined : await this.sighting(this.eyes);
    const reckoned = this.reckoning?.reckoned();
    const r = await this.drive.run({ verb: 'kick', slot: foot === 'left' ? 'kick_left' : 'kick_right', command: { vx: 0, vy: 0, vyaw: 0 }, until: { kind: 'duration' }, timeoutMs: 5000 }, signal);
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
}
