/**
 * reachy-mini:mock: Pollen's Reachy Mini on a desk in the lookout room. Its head looks about
 * within the published limits (limits.ts), its body turns on the fixed base, its antennas move,
 * and its camera says what it looks at. A target beyond the limits is clamped, as the SDK does,
 * and the result says so. Bearings are from the base's front, which never moves.
 */
import type { Body, BodyEyes, BodyOptions, Frame, Intent, Observation, VerbResult } from '../../body.js';
import { deg, rad, round2, type Pose } from '../../microduck/sim2d/arena.js';
import { renderRoom } from '../../microduck/sim2d/render.js';
import { describeBearing } from '../../microduck/sim2d/sim2d-body.js';
import type { Camera, Eye, Sighting } from '../../room/camera.js';
import { clampNotes } from '../../room/clamp.js';
import { describeSightings, mergeSightings, pitchWords } from '../../room/lookout-room.js';
import { RoomBody } from '../../room/room-body.js';
import { roomForSeed, type RoomLayout } from '../../room/room.js';
import { roomEyes } from '../../room/room-view.js';
import { clampBody, clampHead, LIMITS, type HeadPose } from './limits.js';

/** A wide-angle head camera, the lens a metre up (a desk, and the robot on it). */
export const REACHY_CAMERA: Camera = { halfFov: rad(40), halfVfov: rad(30), range: 6, height: 1.0 };
/** Its footprint on the desk: the room's things stand clear of it. */
const DESK_RADIUS = 0.3;
/** A sweep's head yaw steps, degrees. */
const SWEEP_STEP = 30;

export class ReachyMiniBody extends RoomBody implements Body {
  readonly key = 'reachy-mini:mock' as const;
  /** The fixed base: where it stands and its front. */
  private readonly base: Pose;
  private head: HeadPose = { yaw: 0, pitch: 0, roll: 0 };
  private bodyYaw = 0;
  private antennas = { left: 0, right: 0 };
  /** With `camera: synthetic`, the head camera's picture of the room (`snapshot`). */
  readonly eyes: BodyEyes | undefined;

  constructor(layout: RoomLayout, camera?: 'synthetic') {
    super(layout.things);
    this.base = layout.robot;
    this.eyes = camera === 'synthetic' ? roomEyes(REACHY_CAMERA, () => this.eye(), layout.things) : undefined;
  }

  private eye(head: HeadPose = this.head): Eye {
    return { at: this.base, heading: this.base.heading + rad(head.yaw), pitch: rad(head.pitch) };
  }

  private view(): Sighting[] {
    return this.room.see(REACHY_CAMERA, this.eye(), this.base.heading);
  }

  private poseData(): Record<string, number> {
    return { head_yaw_deg: this.head.yaw, head_pitch_deg: this.head.pitch, head_roll_deg: this.head.roll, body_yaw_deg: this.bodyYaw };
  }

  observe(): Promise<Observation> {
    const sightings = this.view();
    return Promise.resolve({ summary: `camera: ${describeSightings(sightings)}`, data: { sightings, ...this.poseData() } });
  }

  perform(intent: Intent): Promise<VerbResult> {
    switch (intent.verb) {
      case 'look':
        return Promise.resolve(this.look({ yaw: intent.args.yaw, pitch: intent.args.pitch ?? 0, roll: intent.args.roll ?? 0 }));
      case 'turn_body':
        return Promise.resolve(this.turnBody(intent.args.yaw));
      case 'antennas':
        return Promise.resolve(this.setAntennas(intent.args.left, intent.args.right));
      case 'look_around':
        return Promise.resolve(this.lookAround());
      case 'report':
        return Promise.resolve(this.room.check(intent.args.sightings, this.base, this.base.heading));
      case 'quack':
        // No quack of its own: the antennas wiggle, and come back where they were.
        return Promise.resolve({ ok: true, summary: 'wiggled its antennas: quack!', data: { quacks: this.room.quack() } });
      default:
        return Promise.resolve({ ok: false, summary: `${intent.verb} is not a verb of ${this.key}` });
    }
  }

  private look(target: HeadPose): VerbResult {
    const { pose, clamped } = clampHead(target, this.bodyYaw);
    this.head = pose;
    const sightings = this.view();
    return {
      ok: true,
      summary: `head ${describeBearing(rad(pose.yaw))}, ${pitchWords(pose.pitch)}${pose.roll !== 0 ? `, rolled ${Math.round(pose.roll)}°` : ''}; camera: ${describeSightings(sightings)}${clampNotes(clamped)}`,
      data: { sightings, ...this.poseData(), clamped: clamped.some((c) => c.note !== undefined) },
    };
  }

  private turnBody(yaw: number): VerbResult {
    const { pose, clamped } = clampBody(yaw, this.head);
    this.bodyYaw = pose.bodyYaw;
    this.head = pose.head;
    const sightings = this.view();
    return {
      ok: true,
      summary: `body at ${describeBearing(rad(pose.bodyYaw))}; head ${describeBearing(rad(pose.head.yaw))}; camera: ${describeSightings(sightings)}${clampNotes(clamped)}`,
      data: { sightings, ...this.poseData(), clamped: clamped.some((c) => c.note !== undefined) },
    };
  }

  private setAntennas(left: number, right: number): VerbResult {
    this.antennas = { left, right };
    return { ok: true, summary: `antennas at ${Math.round(left)}° left, ${Math.round(right)}° right`, data: { antenna_left_deg: left, antenna_right_deg: right } };
  }

  /**
   * Turns body and head together all the way round (the head leads the body where the body's
   * ±160° ends), glancing every 30°, then goes back to the pose it started from.
   */
  private lookAround(): VerbResult {
    const glances = [];
    for (let yaw = -LIMITS.yaw; yaw <= LIMITS.yaw; yaw += SWEEP_STEP) {
      const body = Math.max(-LIMITS.bodyYaw, Math.min(LIMITS.bodyYaw, yaw));
      const head = clampHead({ ...this.head, yaw }, body).pose;
      glances.push(this.room.glance(REACHY_CAMERA, this.eye(head), this.base.heading));
    }
    const sightings = mergeSightings(glances);
    return { ok: true, summary: `looked all round, head ${pitchWords(this.head.pitch)}: ${describeSightings(sightings)}`, data: { sightings, turned_deg: 360 } };
  }

  frame(): Frame {
    return {
      state: {
        base: { x: round2(this.base.x), y: round2(this.base.y), heading_deg: Math.round(deg(this.base.heading)) },
        body_yaw_deg: this.bodyYaw,
        head: { yaw_deg: this.head.yaw, pitch_deg: this.head.pitch, roll_deg: this.head.roll },
        antennas: { left_deg: this.antennas.left, right_deg: this.antennas.right },
        things: this.room.state(),
      },
      // The arrow is where the head looks.
      ascii: renderRoom({ ...this.base, heading: this.base.heading + rad(this.head.yaw) }, this.room.marks()),
    };
  }
}

export function createReachyMiniBody(options: BodyOptions): ReachyMiniBody {
  return new ReachyMiniBody(roomForSeed(options.seed, DESK_RADIUS), options.settings?.['camera'] === 'synthetic' ? 'synthetic' : undefined);
}
