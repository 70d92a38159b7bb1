/**
 * reachy-mini:daemon: a real (or simulated) Reachy Mini driven through Pollen's daemon over HTTP.
 * The same verbs and limits as reachy-mini:mock (limits.ts: a target beyond them is clamped and
 * the result says so), its state read from the daemon, torque through its motor modes. A daemon
 * that is down, silent or answering an error ends the verb with its one line. With a `camera:`
 * setting (the robot's own camera, released by the daemon: daemon-camera.ts), look, turn_body and
 * look_around glance through it and say where the colour detector sees the ball; without one they
 * move the head and say there is no camera.
 */
import type { Body, BodyEyes, BodyOptions, Frame, Intent, Metrics, Observation, VerbResult } from '../../body.js';
import { BodyError } from '../../body.js';
import { CameraError } from '../../../camera/camera.js';
import type { CameraSettings } from '../../../camera/settings.js';
import { cameraEyes } from '../../camera-eyes.js';
import { deg, rad } from '../../microduck/sim2d/arena.js';
import { describeBearing } from '../../microduck/sim2d/sim2d-body.js';
import { torqueResult } from '../../microduck/torque.js';
import { clampNotes, type Clamped } from '../../room/clamp.js';
import { describeSightings, mergeSightings, pitchWords } from '../../room/lookout-room.js';
import { plural } from '../../../text/plural.js';
import { clampBody, clampHead, LIMITS, type HeadPose } from '../mock/limits.js';
import { backendDown } from './backend-state.js';
import { DaemonClient, DaemonError } from './client.js';
import { DaemonReleasedCamera } from './daemon-camera.js';
import { headGlance, type Glance } from './head-camera.js';
import { goto, moveSeconds, stopMoves, type GotoTarget } from './moves.js';
import { quackWav } from './quack-sound.js';
import { daemonSettings, type DaemonSettings } from './settings.js';
import { daemonStatus, fullState, motorStatus, parseAnswer, type FullState, type MotorMode } from './wire.js';

/** Said wherever a camera would have answered, on a robot without a `camera:` setting. */
export const NO_CAMERA = 'no camera (give the robot a camera: setting to see)';
const SWEEP_STEP = 30;
const WIGGLE_DEG = 35;
const WIGGLE_S = 0.25;
/** The name quackd's quack is uploaded under (the daemon keeps uploads in its sounds folder). */
export const QUACK_FILE = 'quackd-quack.wav';

interface Present {
  readonly head: HeadPose;
  readonly bodyYaw: number;
  readonly antennas: readonly [number, number];
  readonly mode: MotorMode | undefined;
}

/** The daemon's FullState in this body's degrees. */
function present(state: FullState): Present {
  const h = state.head_pose;
  const [left = 0, right = 0] = state.antennas_position ?? [];
  return {
    head: { yaw: deg(h?.yaw ?? 0), pitch: deg(h?.pitch ?? 0), roll: deg(h?.roll ?? 0) },
    bodyYaw: deg(state.body_yaw ?? 0),
    antennas: [deg(left), deg(right)],
    mode: state.control_mode ?? undefined,
  };
}

const r1 = (n: number): number => Math.round(n * 10) / 10;

export class ReachyDaemonBody implements Body {
  readonly key = 'reachy-mini:daemon' as const;
  private now: Present;
  private quacks = 0;
  private reported = 0;
  /** Whether quackd's quack is on the daemon: uploaded once a run (a daemon restarted since has lost it). */
  private uploaded = false;

  constructor(
    private readonly client: DaemonClient,
    private readonly settings: DaemonSettings,
    first: Present,
    readonly eyes?: BodyEyes,
  ) {
    this.now = first;
  }

  private async read(signal?: AbortSignal): Promise<Present> {
    this.now = present(parseAnswer(fullState, await this.client.get('/api/state/full', signal), 'GET /api/state/full'));
    return this.now;
  }

  private poseData(): Record<string, number> {
    const { head, bodyYaw } = this.now;
    return { head_yaw_deg: r1(head.yaw), head_pitch_deg: r1(head.pitch), head_roll_deg: r1(head.roll), body_yaw_deg: r1(bodyYaw) };
  }

  private poseWords(): string {
    const { head, bodyYaw } = this.now;
    return `body at ${describeBearing(rad(bodyYaw))}; head ${describeBearing(rad(head.yaw))}, ${pitchWords(head.pitch)}${Math.round(head.roll) !== 0 ? `, rolled ${Math.round(head.roll)}°` : ''}`;
  }

  async observe(): Promise<Observation> {
    await this.read();
    return { summary: `${this.poseWords()}; antennas ${Math.round(this.now.antennas[0])}°/${Math.round(this.now.antennas[1])}°; motors ${this.now.mode ?? 'unknown'}; ${this.eyes === undefined ? NO_CAMERA : `camera ${this.eyes.camera.source} (look to see)`}`, data: { ...this.poseData(), motors: this.now.mode ?? 'unknown' } };
  }

  async perform(intent: Intent, signal?: AbortSignal): Promise<VerbResult> {
    try {
      return await this.dispatch(intent, signal);
    } catch (err) {
      if (err instanceof DaemonError) return { ok: false, summary: err.message, data: { daemon_error: err.kind, ...(err.status !== undefined ? { status: err.status } : {}) } };
      if (err instanceof CameraError) return { ok: false, summary: err.message, data: { camera_failed: err.kind } };
      throw err;
    }
  }

  private dispatch(intent: Intent, signal?: AbortSignal): Promise<VerbResult> {
    switch (intent.verb) {
      case 'look':
        return this.look({ yaw: intent.args.yaw, pitch: intent.args.pitch ?? 0, roll: intent.args.roll ?? 0 }, signal);
      case 'turn_body':
        return this.turnBody(intent.args.yaw, signal);
      case 'antennas':
        return this.setAntennas(intent.args.left, intent.args.right, signal);
      case 'look_around':
        return this.lookAround(signal);
      case 'report':
        // Nothing here knows what is really where: the report is taken as said, and counted.
        this.reported += intent.args.sightings.length;
        return Promise.resolve({ ok: true, summary: `noted ${plural(intent.args.sightings.length, 'thing')}; not checked: ${this.eyes === undefined ? NO_CAMERA : "the camera's detector knows only the ball"}`, data: { objects_reported: this.reported } });
      case 'quack':
        return this.quack(signal);
      case 'torque':
        return this.torque(intent.args.on, signal);
      default:
        return Promise.resolve({ ok: false, summary: `${intent.verb} is not a verb of ${this.key}` });
    }
  }

  /** The pose now, read from the daemon, or why nothing may move: its motors hold no pose. */
  private async beforeMove(signal?: AbortSignal): Promise<Present | VerbResult> {
    const now = await this.read(signal);
    if (now.mode === 'enabled' || now.mode === undefined) return now;
    return { ok: false, summary: `the motors are ${now.mode === 'disabled' ? 'off (limp)' : 'in gravity compensation'}: nothing moved; torque on first`, data: { motors: now.mode } };
  }

  private async move(target: GotoTarget, degrees: number, signal?: AbortSignal): Promise<void> {
    await goto(this.client, target, moveSeconds(degrees), signal);
    await this.read(signal);
  }

  /** Where the head came to and, through the camera where there is one, what it sees from there. */
  private async movedAndSeen(clamped: readonly Clamped[], signal?: AbortSignal): Promise<VerbResult> {
    const sightings = this.eyes === undefined ? undefined : (await headGlance(this.eyes, this.now.head, signal)).map((g) => g.sighting);
    const seen = sightings === undefined ? NO_CAMERA : `camera: ${describeSightings(sightings)}`;
    return { ok: true, summary: `${this.poseWords()}; ${seen}${clampNotes(clamped)}`, data: { ...this.poseData(), ...(sightings !== undefined ? { sightings } : {}), clamped: clamped.some((c) => c.note !== undefined) } };
  }

  private async look(target: HeadPose, signal?: AbortSignal): Promise<VerbResult> {
    const now = await this.beforeMove(signal);
    if ('ok' in now) return now;
    const { pose, clamped } = clampHead(target, now.bodyYaw);
    await this.move({ head: pose }, Math.max(Math.abs(pose.yaw - now.head.yaw), Math.abs(pose.pitch - now.head.pitch), Math.abs(pose.roll - now.head.roll)), signal);
    return this.movedAndSeen(clamped, signal);
  }

  private async turnBody(yaw: number, signal?: AbortSignal): Promise<VerbResult> {
    const now = await this.beforeMove(signal);
    if ('ok' in now) return now;
    const { pose, clamped } = clampBody(yaw, now.head);
    await this.move({ bodyYaw: pose.bodyYaw, head: pose.head }, Math.abs(pose.bodyYaw - now.bodyYaw), signal);
    return this.movedAndSeen(clamped, signal);
  }

  private async setAntennas(left: number, right: number, signal?: AbortSignal): Promise<VerbResult> {
    const now = await this.beforeMove(signal);
    if ('ok' in now) return now;
    await this.move({ antennas: [left, right] }, Math.max(Math.abs(left - now.antennas[0]), Math.abs(right - now.antennas[1])), signal);
    const [l, r] = this.now.antennas;
    return { ok: true, summary: `antennas at ${Math.round(l)}° left, ${Math.round(r)}° right`, data: { antenna_left_deg: r1(l), antenna_right_deg: r1(r) } };
  }

  /**
   * Body and head together all the way round, as the mock sweeps (the head leads where the
   * body's ±160° ends), 30° a glance, then back to the pose it started from.
   */
  private async lookAround(signal?: AbortSignal): Promise<VerbResult> {
    const start = await this.beforeMove(signal);
    if ('ok' in start) return start;
    let last = start.bodyYaw;
    const glances: Glance[][] = [];
    for (let yaw = -LIMITS.yaw; yaw <= LIMITS.yaw && signal?.aborted !== true; yaw += SWEEP_STEP) {
      const body = Math.max(-LIMITS.bodyYaw, Math.min(LIMITS.bodyYaw, yaw));
      await goto(this.client, { bodyYaw: body, head: clampHead({ ...start.head, yaw }, body).pose }, moveSeconds(Math.max(Math.abs(body - last), SWEEP_STEP)), signal);
      last = body;
      // The glance is from where the head is, read back, not where it was sent.
      if (this.eyes !== undefined) glances.push(await headGlance(this.eyes, (await this.read(signal)).head, signal));
    }
    await this.move({ bodyYaw: start.bodyYaw, head: start.head }, Math.abs(last - start.bodyYaw), signal);
    const sightings = mergeSightings(glances);
    const seen = this.eyes === undefined ? NO_CAMERA : `camera: ${describeSightings(sightings)}`;
    return { ok: true, summary: `looked all round, head ${pitchWords(start.head.pitch)}, and came back; ${seen}`, data: { sightings, turned_deg: 360 } };
  }

  /** The antennas' wiggle, back where they were, with the daemon's sound unless quack_sound is none. */
  private async quack(signal?: AbortSignal): Promise<VerbResult> {
    const now = await this.beforeMove(signal);
    if ('ok' in now) return now;
    const sound = await this.playQuack(signal);
    for (const side of [1, -1]) await goto(this.client, { antennas: [side * WIGGLE_DEG, -side * WIGGLE_DEG] }, WIGGLE_S, signal);
    await this.move({ antennas: now.antennas }, WIGGLE_DEG, signal);
    this.quacks += 1;
    return { ok: true, summary: `quack! ${sound}, and wiggled its antennas`, data: { quacks: this.quacks } };
  }

  /**
   * Asks the daemon to play the quack (it plays in the background) and says what it did. A
   * daemon that refuses the sound (its media off, a file it lacks) still gets the wiggle, and the
   * result says why there was no sound; one that is down or silent ends the verb.
   */
  private async playQuack(signal?: AbortSignal): Promise<string> {
    const sound = this.settings.quack_sound;
    if (sound === 'none') return 'no sound (quack_sound: none)';
    // The daemon's speaker stops with its media pipeline, released while quackd reads its camera.
    if (this.eyes?.camera instanceof DaemonReleasedCamera && this.eyes.camera.holdsDaemonMedia) return "no sound (the daemon's media is released to quackd's camera)";
    const file = sound === 'quackd' ? QUACK_FILE : sound;
    try {
      if (sound === 'quackd' && !this.uploaded) {
        await this.client.upload('/api/media/sounds/upload', QUACK_FILE, quackWav(), signal);
        this.uploaded = true;
      }
      await this.client.post('/api/media/play_sound', { file }, signal);
      return `played ${file}`;
    } catch (err) {
      if (err instanceof DaemonError && err.kind === 'http') return `no sound (${err.message})`;
      throw err;
    }
  }

  private async torque(on: boolean, signal?: AbortSignal): Promise<VerbResult> {
    await this.client.post(`/api/motors/set_mode/${on ? 'enabled' : 'disabled'}`, undefined, signal);
    const { mode } = parseAnswer(motorStatus, await this.client.get('/api/motors/status', signal), 'GET /api/motors/status');
    this.now = { ...this.now, mode };
    if ((mode === 'enabled') !== on) return { ok: false, summary: `asked for torque ${on ? 'on' : 'off'}, but the daemon reads its motors ${mode}`, data: { torque: mode === 'enabled', motors: mode } };
    return torqueResult(on);
  }

  frame(): Frame {
    const { head, bodyYaw, antennas, mode } = this.now;
    return {
      state: {
        base_url: this.client.baseUrl,
        body_yaw_deg: r1(bodyYaw),
        head: { yaw_deg: r1(head.yaw), pitch_deg: r1(head.pitch), roll_deg: r1(head.roll) },
        antennas: { left_deg: r1(antennas[0]), right_deg: r1(antennas[1]) },
        motors: mode ?? 'unknown',
      },
    };
  }

  metrics(): Metrics {
    return { quacks: this.quacks, torque: this.now.mode === 'enabled' ? 1 : 0, objects_reported: this.reported };
  }

  async stop(): Promise<void> {
    try {
      await stopMoves(this.client);
    } catch (err) {
      // Nothing listening: no daemon, so no move of ours runs. One that did not answer in time (a
      // network drop, a daemon frozen) may still be moving the robot: that stop did not land.
      if (err instanceof DaemonError && err.kind === 'down') return;
      throw new BodyError(`the stop did not reach the Reachy Mini daemon: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Lets the camera go: its process ends and the daemon gets its media back. */
  async close(): Promise<void> {
    await this.eyes?.camera.close();
  }
}

/** The daemon, asked that it runs and where the robot is, before a run starts. */
export async function createDaemonBody(options: BodyOptions, eyes?: BodyEyes): Promise<ReachyDaemonBody> {
  const settings = daemonSettings.parse(options.settings ?? {});
  const client = new DaemonClient(settings.base_url, settings.timeout_s * 1000);
  const status = parseAnswer(daemonStatus, await client.get('/api/daemon/status'), 'GET /api/daemon/status');
  const down = backendDown(status, settings.base_url);
  if (down !== undefined) throw new BodyError(down);
  const first = present(parseAnswer(fullState, await client.get('/api/state/full'), 'GET /api/state/full'));
  return new ReachyDaemonBody(client, settings, first, eyes ?? (settings.camera === undefined ? undefined : await releasedEyes(settings.camera, client)));
}

/** The robot's camera, taken from the daemon at the first look (no process starts before). */
async function releasedEyes(camera: CameraSettings, client: DaemonClient): Promise<BodyEyes> {
  const eyes = await cameraEyes('reachy-mini:daemon', camera);
  return { ...eyes, camera: new DaemonReleasedCamera(eyes.camera, client) };
}
