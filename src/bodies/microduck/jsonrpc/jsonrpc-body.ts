/**
 * microduck:jsonrpc: a real Microduck behind the serial bridge, driven by the same 50 Hz control
 * loop as the MuJoCo twin. The loop's worker owns the serial port: the bridge plant
 * (control-plant.ts) opens the link and the BridgeClient there, so the heartbeat beats beside the
 * loop; this body reaches that client through a RemoteBridge (src/bridge/channel.ts) for hello,
 * state, quack and torque, and runs walk, turn and kick as policy verbs in the loop
 * (motion-verbs.ts says what each did; verb-drive.ts runs one, its stop and its torque). Opening says
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
 * `fault` notification as `fault`; either stops a running verb on the loop's next tick. So does a
 * stop (the caller's signal, stop()) at any moment of a motion verb, from its first question to
 * the firmware to its last tick: a stop before torque is on leaves it off, and the result says
 * what was done (the time the policy ran, the targets sent). A verb that sent no target never
 * reads as done. Each run after the first says hello again, so the run knows which boot of the
 * firmware it talks to (`link`): a firmware that restarted behind a port that stayed has a new
 * boot id.
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
import { skillWarmups } from '../../../control/skills/specs.js';
import { bundledPolicyDir } from '../../../policy/bundled.js';
import { SLOTS, type Slot } from '../../../policy/slots.js';
import { LentPolicies } from '../lent-policies.js';
import { siblingModule } from '../../../worker-thread.js';
import { BodyError, type Body, type BodyEyes, type BodyLink, type BodyTrouble, type BodyOptions, type Frame, type Intent, type Metrics, type Observation, type VerbResult } from '../../body.js';
import { DEFAULT_AFTER_FALL } from './after-fall.js';
import { LinkFactsSchema } from './control-plant.js';
import { describeState, stateMetrics } from './describe-state.js';
import { greet } from './greet.js';
import { LinkWatch } from './link-watch.js';
import { MotionVerbs } from './motion-verbs.js';
import { OwedStop } from './owed-stop.js';
import { reportBody } from './report.js';
import { torqueResult } from '../torque.js';
import { JSONRPC_KEY, REFUSED, jsonRpcSettings } from './settings.js';
import { PERIOD_MS, VerbDrive, type JsonRpcControl } from './verb-drive.js';
import { logger } from '../../../log.js';
import { cameraEyes } from '../../camera-eyes.js';
import { cameraGlance } from '../../camera-scan.js';
import { BallReckoning } from '../ball-reckoning.js';

export { greet } from './greet.js';
export { JSONRPC_KEY } from './settings.js';
export type { JsonRpcControl } from './verb-drive.js';

/** A streamed state older than this is stale; observe() asks for a fresh one. */
const STALE_STATE_MS = 250;

const torqueArgs = z.object({ on: z.boolean() });

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
  /** Quacks this body made since it opened: the firmware's own count runs from its boot. */
  private quacks = 0;
  private readonly listeners = new Set<(trouble: BodyTrouble) => void>();
  /** The hello that opened the body is the first run's: only later runs say hello again. */
  private greeted = true;
  /** Lost and back: who answers at the far end, and whether anyone does. */
  private readonly linkWatch: LinkWatch;
  /** A stop that could not reach the firmware (the link was down): sent again as soon as it is back. */
  private readonly owedStop: OwedStop;
  /** Where the ball is reckoned from the last sighting (a camera's duck only). */
  private readonly reckoning: BallReckoning | undefined;
  /** Each slot's folder for this run: the pool lends them at every lease. */
  private readonly lent: LentPolicies;
  /** The motion verb under way, if any (verb-drive.ts): trouble and stop() end it. */
  private readonly drive: VerbDrive;
  /** walk, turn, kick and search_scan (motion-verbs.ts). */
  private readonly motion: MotionVerbs;

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
    const host = { freshState: () => this.freshState(), settle: () => this.settle(), assertLinked: () => this.assertLinked(), unwatch: () => this.stopWatch() };
    this.drive = new VerbDrive(client, this.linkWatch, this.lent, host, control, eyes !== undefined);
    this.motion = new MotionVerbs(client, this.drive, this.lent, control, eyes, this.reckoning, () => this.settle());
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
      if (intent.verb === 'walk') return await this.motion.walk(intent.args.metres, intent.args.speed, signal);
      if (intent.verb === 'turn') return await this.motion.turn(intent.args.degrees, intent.args.rate, signal);
      if (intent.verb === 'kick') return await this.motion.kick(intent.args.foot, signal);
      if (intent.verb === 'search_scan' && this.eyes !== undefined) return await this.motion.searchScan(this.eyes, signal);
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

  /** The yaw the plant has integrated from the gyro since the body opened (radians, left +), when it says. */
  yawRad(): Promise<number | undefined> {
    return this.motion.yawRad();
  }

  get link(): BodyLink {
    const { firmware, board, boot } = this.linkWatch.hello;
    return { device: this.port.label, firmware, board, boot };
  }

  usePolicies(dirs: Readonly<Record<string, string>>): void {
    this.lent.use(dirs);
  }

  /**
   * Per-run counters start again, and a held body asks who is at the far end now (link-watch.ts:
   * a firmware that restarted, or a link lost since the last run and reopened by the worker).
   */
  async beginRun(): Promise<void> {
    this.quacks = 0;
    this.motion.displaced = undefined;
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
    return { ...(last ? stateMetrics(last.state) : {}), quacks: this.quacks, ...(this.motion.displaced !== undefined ? { ball_displaced_m: this.motion.displaced } : {}), link_crc_errors: c.crc, link_dropped_frames: c.crc + c.malformed + c.overlong + c.runt };
  }

  /**
   * Torque off, confirmed by the firmware, or a BodyError that says why not (the run's
   * transcript records it): a dead link must never read as a clean stop.
   */
  async stop(): Promise<void> {
    // A motion verb under way ends at the loop's next tick, whatever it was doing when this came.
    this.drive.abort();
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
    this.drive.abort();
    for (const listener of [...this.listeners]) listener(trouble);
  }

  /** The stream is watched while anyone listens or a motion verb runs. */
  private stopWatch(): void {
    if (this.listeners.size > 0 || this.drive.active) return;
    this.linkWatch.stop();
  }
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
