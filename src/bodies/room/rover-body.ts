/**
 * A kinematic robot in the lookout room, shaped by its profile (src/bodies/room/rover-profile.ts):
 * XLeRobot, AlohaMini and ToddlerBot are each this body with their own size, camera, gait and
 * quack. Verbs act at once and exactly (kinematic, not physics); results are one line a person
 * and a model can both read, with the sightings as data a scripted pilot reads.
 */
import type { Body, BodyEyes, BodyKey, BodyOptions, Frame, Intent, Observation, VerbResult } from '../body.js';
import { deg, rad, round2, sweepDisc, wrapAngle, type Pose } from '../microduck/sim2d/arena.js';
import { renderRoom } from '../microduck/sim2d/render.js';
import { describeBearing, describeTurn } from '../microduck/sim2d/sim2d-body.js';
import type { Eye, Sighting } from './camera.js';
import { clampNotes, clampTo } from './clamp.js';
import { describeSightings, mergeSightings, pitchWords } from './lookout-room.js';
import { RoomBody } from './room-body.js';
import { obstaclesOf, roomForSeed, type RoomLayout } from './room.js';
import { roverVerbs, type RoverProfile } from './rover-profile.js';
import { roomEyes } from './room-view.js';

/** A sweep turns this far between glances: less than any rover camera's field of view. */
export const SWEEP_STEP_DEG = 30;

export class RoverBody extends RoomBody implements Body {
  readonly key: BodyKey;
  private robot: Pose;
  /** Where the head points from the front, degrees (yaw + left, pitch + down). */
  private head = { yaw: 0, pitch: 0 };
  private readonly verbs: readonly string[];
  /** With `camera: synthetic`, its camera's picture of the room (`snapshot`). */
  readonly eyes: BodyEyes | undefined;

  constructor(
    private readonly profile: RoverProfile,
    layout: RoomLayout,
    camera?: 'synthetic',
  ) {
    super(layout.things);
    this.key = profile.key;
    this.robot = layout.robot;
    this.verbs = roverVerbs(profile);
    this.eyes = camera === 'synthetic' ? roomEyes(profile.camera, () => this.eye(), layout.things) : undefined;
  }

  private eye(heading = this.robot.heading): Eye {
    return { at: this.robot, heading: heading + rad(this.head.yaw), pitch: rad(this.head.pitch) };
  }

  private view(): Sighting[] {
    return this.room.see(this.profile.camera, this.eye(), this.robot.heading);
  }

  observe(): Promise<Observation> {
    const sightings = this.view();
    return Promise.resolve({ summary: `camera: ${describeSightings(sightings)}`, data: { sightings, head_yaw_deg: this.head.yaw, head_pitch_deg: this.head.pitch } });
  }

  perform(intent: Intent): Promise<VerbResult> {
    if (!this.verbs.includes(intent.verb)) return Promise.resolve({ ok: false, summary: `${intent.verb} is not a verb of ${this.key}` });
    switch (intent.verb) {
      case 'look_around':
        return Promise.resolve(this.lookAround());
      case 'look':
        return Promise.resolve(this.look(intent.args.yaw, intent.args.pitch ?? 0, intent.args.roll ?? 0));
      case 'turn':
        return Promise.resolve(this.turn(intent.args.degrees));
      case 'drive':
      case 'walk':
        return Promise.resolve(this.move(intent.args.metres));
      case 'report':
        return Promise.resolve(this.room.check(intent.args.sightings, this.robot, this.robot.heading));
      case 'quack':
        return Promise.resolve({ ok: true, summary: this.profile.quack, data: { quacks: this.room.quack() } });
      default:
        return Promise.resolve({ ok: false, summary: `${intent.verb} is not a verb of ${this.key}` });
    }
  }

  /** Turns the base all the way round in steps, the head as it is, and ends facing where it began. */
  private lookAround(): VerbResult {
    const front = this.robot.heading;
    const glances = [];
    for (let turned = 0; turned < 360; turned += SWEEP_STEP_DEG) {
      glances.push(this.room.glance(this.profile.camera, this.eye(wrapAngle(front + rad(turned))), front));
    }
    const sightings = mergeSightings(glances);
    return { ok: true, summary: `looked all round: ${describeSightings(sightings)}`, data: { sightings, turned_deg: 360 } };
  }

  private look(yaw: number, pitch: number, roll: number): VerbResult {
    const reach = this.profile.head;
    if (reach === undefined) return { ok: false, summary: `look is not a verb of ${this.key}` };
    const y = clampTo('yaw', yaw, -reach.yaw, reach.yaw, `the head turns ${reach.yaw}° either way`);
    const p = clampTo('pitch', pitch, -reach.pitch, reach.pitch, `the head tilts ${reach.pitch}° either way`);
    const r = clampTo('roll', roll, 0, 0, 'this head does not roll');
    this.head = { yaw: y.value, pitch: p.value };
    const sightings = this.view();
    return {
      ok: true,
      summary: `looking ${describeBearing(rad(y.value))}, ${pitchWords(p.value)}; camera: ${describeSightings(sightings)}${clampNotes([y, p, r])}`,
      data: { sightings, head_yaw_deg: y.value, head_pitch_deg: p.value, clamped: [y, p, r].some((c) => c.note !== undefined) },
    };
  }

  private turn(degrees: number): VerbResult {
    this.robot = { ...this.robot, heading: wrapAngle(this.robot.heading + rad(degrees)) };
    const sightings = this.view();
    return { ok: true, summary: `turned ${describeTurn(degrees)}; camera: ${describeSightings(sightings)}`, data: { sightings } };
  }

  private move(metres: number): VerbResult {
    const moved = sweepDisc(this.robot, this.robot.heading, metres, this.profile.radius, obstaclesOf(this.room.things));
    this.robot = { ...this.robot, ...moved.to };
    const gait = this.profile.moves === 'drive' ? 'drove' : 'walked';
    const what = moved.blockedBy === undefined ? `${gait} ${moved.travelled.toFixed(2)} m` : `stopped after ${moved.travelled.toFixed(2)} m: blocked by the ${moved.blockedBy}`;
    const sightings = this.view();
    return {
      ok: moved.blockedBy === undefined,
      summary: `${what}; camera: ${describeSightings(sightings)}`,
      data: { moved_m: round2(moved.travelled), ...(moved.blockedBy !== undefined ? { blocked_by: moved.blockedBy } : {}), sightings },
    };
  }

  frame(): Frame {
    return {
      state: {
        robot: { x: round2(this.robot.x), y: round2(this.robot.y), heading_deg: Math.round(deg(this.robot.heading)) },
        head: { yaw_deg: this.head.yaw, pitch_deg: this.head.pitch },
        things: this.room.state(),
      },
      ascii: renderRoom(this.robot, this.room.marks()),
    };
  }
}

export function createRoverBody(profile: RoverProfile, options: BodyOptions): RoverBody {
  return new RoverBody(profile, roomForSeed(options.seed, profile.radius), options.settings?.['camera'] === 'synthetic' ? 'synthetic' : undefined);
}
