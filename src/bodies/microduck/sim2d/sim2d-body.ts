/**
 * microduck:sim2d, the Body behind the default `quackd run`: a Microduck in the 2D living room
 * of arena.ts. Verbs act instantly; results are one line a person and a model can both read.
 */
import type { Body, BodyEyes, BodyOptions, Frame, Intent, Metrics, Observation, VerbResult } from '../../body.js';
import {
  BALL_RADIUS,
  BALL_ROOM,
  DUCK_RADIUS,
  bearingTo,
  cameraSeesBall,
  deg,
  dist,
  freeSpot,
  kickDistance,
  rad,
  round2,
  sweepDisc,
  wrapAngle,
  type Pose,
  type Vec,
} from './arena.js';
import { seededRandom } from '../../../random.js';
import { SimTorque } from '../torque.js';
import { renderAscii } from './render.js';
import type { Camera } from '../../../camera/camera.js';
import { SyntheticCamera } from '../../../camera/synthetic-camera.js';
import { SCAN_STEP, SIM2D_BALL_LOOK } from './camera-scan.js';
import { cameraScan } from '../../camera-scan.js';
import { renderView } from './view.js';

/** `18° left`, `4° right`, `straight ahead`. */
export function describeBearing(bearingRad: number): string {
  const d = Math.round(deg(bearingRad));
  if (d === 0) return 'straight ahead';
  return `${Math.abs(d)}° ${d > 0 ? 'left' : 'right'}`;
}

const metres = (m: number): string => `${m.toFixed(2)} m`;

export interface Sim2dLayout {
  readonly duck: Pose;
  readonly ball: Vec;
}

/**
 * The seeded starting layout: the duck somewhere free, facing anywhere; the ball at least 1 m
 * away with BALL_ROOM of open floor all round, so it can be kicked 0.3 m whichever side the duck
 * comes from. Every free spot is reachable: the gaps between the sofa and the walls (0.5 m,
 * 0.7 m) are wider than the duck.
 */
export function layoutForSeed(seed: number): Sim2dLayout {
  const random = seededRandom(seed);
  const duckAt = freeSpot(random, DUCK_RADIUS, 0.4);
  const heading = wrapAngle(random() * 2 * Math.PI);
  const ballSpot = (): Vec => freeSpot(random, BALL_RADIUS, BALL_RADIUS + BALL_ROOM, BALL_ROOM);
  let ball = ballSpot();
  while (dist(ball, duckAt) < 1.0) ball = ballSpot();
  return { duck: { ...duckAt, heading }, ball };
}

export class Sim2dBody implements Body {
  readonly key = 'microduck:sim2d' as const;
  private duck: Pose;
  private ball: Vec;
  private readonly ballStart: Vec;
  private quacks = 0;

  /** With `camera: synthetic`, search_scan looks through this camera and the colour detector instead of asking the room. */
  private readonly camera: Camera | undefined;
  /** The same camera, for `snapshot`. */
  readonly eyes: BodyEyes | undefined;

  constructor(
    layout: Sim2dLayout,
    private readonly torque = new SimTorque(),
    options: { readonly camera?: 'synthetic' } = {},
  ) {
    this.duck = layout.duck;
    this.ball = layout.ball;
    this.ballStart = layout.ball;
    this.camera = options.camera === 'synthetic' ? new SyntheticCamera(() => renderView(this.duck, this.ball)) : undefined;
    this.eyes = this.camera === undefined ? undefined : { camera: this.camera, ball: SIM2D_BALL_LOOK };
  }

  private view(): string {
    const seen = cameraSeesBall(this.duck, this.ball);
    return seen === undefined ? 'no ball in view' : `ball at bearing ${describeBearing(seen.bearing)}, ${metres(seen.distance)}`;
  }

  observe(): Promise<Observation> {
    const seen = cameraSeesBall(this.duck, this.ball);
    return Promise.resolve({
      summary: `camera: ${this.view()}`,
      data:
        seen === undefined
          ? { ball_visible: false }
          : { ball_visible: true, ball_bearing_deg: Math.round(deg(seen.bearing)), ball_distance_m: round2(seen.distance) },
    });
  }

  perform(intent: Intent): Promise<VerbResult> {
    this.torque.before(intent.verb);
    switch (intent.verb) {
      case 'search_scan':
        if (this.camera !== undefined) {
          return cameraScan({
            camera: this.camera,
            look: SIM2D_BALL_LOOK,
            turn: (step) => {
              this.duck = { ...this.duck, heading: wrapAngle(this.duck.heading + rad(step)) };
              return undefined;
            },
          });
        }
        return Promise.resolve(this.searchScan());
      case 'turn':
        return Promise.resolve(this.turn(intent.args.degrees));
      case 'walk':
        return Promise.resolve(this.walk(intent.args.metres));
      case 'kick':
        return Promise.resolve(this.kick(intent.args.foot));
      case 'quack':
        this.quacks += 1;
        return Promise.resolve({ ok: true, summary: 'quack!', data: { quacks: this.quacks } });
      case 'torque':
        return Promise.resolve(this.torque.set(intent.args.on));
      default:
        return Promise.resolve({ ok: false, summary: `${intent.verb} is not a verb of microduck:sim2d` });
    }
  }

  private searchScan(): VerbResult {
    for (let i = 0; i < 12; i++) {
      const seen = cameraSeesBall(this.duck, this.ball);
      if (seen !== undefined) {
        return {
          ok: true,
          summary: `ball found at bearing ${describeBearing(seen.bearing)}, ${metres(seen.distance)}`,
          data: { ball_visible: true, ball_bearing_deg: Math.round(deg(seen.bearing)), ball_distance_m: round2(seen.distance), turned_deg: i * 30 },
        };
      }
      this.duck = { ...this.duck, heading: wrapAngle(this.duck.heading + SCAN_STEP) };
    }
    return { ok: true, summary: 'no ball in sight after a full turn', data: { ball_visible: false, turned_deg: 360 } };
  }

  private turn(degrees: number): VerbResult {
    this.duck = { ...this.duck, heading: wrapAngle(this.duck.heading + rad(degrees)) };
    return { ok: true, summary: `turned ${describeTurn(degrees)}; ${this.view()}`, data: this.viewData() };
  }

  private walk(distance: number): VerbResult {
    const moved = sweepDisc(this.duck, this.duck.heading, distance, DUCK_RADIUS, [{ name: 'ball', at: this.ball, radius: BALL_RADIUS }]);
    this.duck = { ...this.duck, ...moved.to };
    const what = moved.blockedBy === undefined ? `walked ${metres(moved.travelled)}` : `stopped after ${metres(moved.travelled)}: blocked by the ${moved.blockedBy}`;
    return { ok: moved.blockedBy === undefined, summary: `${what}; ${this.view()}`, data: { walked_m: round2(moved.travelled), ...(moved.blockedBy ? { blocked_by: moved.blockedBy } : {}), ...this.viewData() } };
  }

  private kick(foot: 'left' | 'right'): VerbResult {
    const power = kickDistance(this.duck, this.ball, foot);
    if (power === 0) {
      return { ok: false, summary: `kicked ${foot}: missed, the ball is not within reach in front`, data: { ball_moved_m: 0 } };
    }
    // The ball leaves along the line from the duck to the ball, nudged away from the kicking foot.
    const direction = bearingTo({ ...this.duck, heading: 0 }, this.ball) + (foot === 'left' ? -rad(5) : rad(5));
    const rolled = sweepDisc(this.ball, direction, power, BALL_RADIUS, [{ name: 'duck', at: this.duck, radius: DUCK_RADIUS }]);
    this.ball = rolled.to;
    const stopped = rolled.blockedBy === undefined ? '' : ` (stopped by the ${rolled.blockedBy})`;
    return {
      ok: true,
      summary: `ball moved ${metres(rolled.travelled)}${stopped}`,
      data: { ball_moved_m: round2(rolled.travelled), ball_displaced_m: round2(dist(this.ball, this.ballStart)) },
    };
  }

  private viewData(): Record<string, unknown> {
    const seen = cameraSeesBall(this.duck, this.ball);
    return seen === undefined ? { ball_visible: false } : { ball_visible: true, ball_bearing_deg: Math.round(deg(seen.bearing)), ball_distance_m: round2(seen.distance) };
  }

  frame(): Frame {
    return {
      state: {
        duck: { x: round2(this.duck.x), y: round2(this.duck.y), heading_deg: Math.round(deg(this.duck.heading)) },
        ball: { x: round2(this.ball.x), y: round2(this.ball.y) },
        ball_start: { x: round2(this.ballStart.x), y: round2(this.ballStart.y) },
        torque: this.torque.value,
      },
      ascii: renderAscii(this.duck, this.ball),
    };
  }

  metrics(): Metrics {
    // A duck in a plane never tips: upright is what a duck that checks `tilt_deg` on any body reads here.
    return { ball_displaced_m: round2(dist(this.ball, this.ballStart)), quacks: this.quacks, tilt_deg: 0, torque: this.torque.value ? 1 : 0 };
  }

  /** Sim verbs are instantaneous: nothing is ever in motion to stop. */
  stop(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return this.camera?.close() ?? Promise.resolve();
  }
}

/** `30° left`, `0°`: how far a turn went. */
export function describeTurn(degrees: number): string {
  const d = Math.round(degrees);
  return d === 0 ? '0°' : `${Math.abs(d)}° ${d > 0 ? 'left' : 'right'}`;
}

export function createSim2dBody(options: BodyOptions): Sim2dBody {
  const camera = options.settings?.['camera'] === 'synthetic' ? 'synthetic' : undefined;
  return new Sim2dBody(layoutForSeed(options.seed), new SimTorque(options.robot, options.events), camera === undefined ? {} : { camera });
}
