/**
 * The lookout room: sim2d's living room (the same walls and sofa) with a few things standing in
 * it, laid out by the seed, for the kinematic sims and Reachy Mini's mock. Pure; the only
 * randomness is the seeded layout.
 */
import { SOFA, dist, freeSpot, wrapAngle, type Obstacle, type Pose, type Vec } from '../microduck/sim2d/arena.js';
import { seededRandom } from '../../random.js';

export interface Thing {
  readonly name: string;
  readonly at: Vec;
  /** Its footprint on the floor: a move stops this close to its centre. */
  readonly radius: number;
  /** How tall it stands (m): a sight line passing lower than the sofa's back cannot see it behind the sofa. */
  readonly height: number;
  /** Its letter on a transcript's floor plan. */
  readonly char: string;
}

/** The sofa's back: nothing shorter behind it is seen by a camera below it. */
export const SOFA_HEIGHT = 0.8;

/** The sofa as a thing a camera sees and a lookout reports (moves stop at its outline, not a disc). */
export const SOFA_THING: Thing = {
  name: 'sofa',
  at: { x: (SOFA.x0 + SOFA.x1) / 2, y: (SOFA.y0 + SOFA.y1) / 2 },
  radius: 0,
  height: SOFA_HEIGHT,
  char: 'S',
};

/** What stands in the room besides the sofa; where, the seed says. */
const LOOSE: readonly Omit<Thing, 'at'>[] = [
  { name: 'ball', radius: 0.06, height: 0.12, char: 'o' },
  { name: 'lamp', radius: 0.15, height: 1.5, char: 'L' },
  { name: 'plant', radius: 0.2, height: 0.9, char: 'P' },
  { name: 'chair', radius: 0.25, height: 0.9, char: 'C' },
  { name: 'box', radius: 0.2, height: 0.3, char: 'B' },
];

export interface RoomLayout {
  readonly robot: Pose;
  /** Every thing in the room, the sofa first. */
  readonly things: readonly Thing[];
}

/** Room enough between two things (or a thing and the robot) to drive or walk between them. */
const GAP = 0.35;

/**
 * The seeded layout: the robot (a disc of `robotRadius`) somewhere free, facing anywhere; each
 * thing elsewhere, clear of the sofa, the robot and each other.
 */
export function roomForSeed(seed: number, robotRadius: number): RoomLayout {
  const random = seededRandom(seed);
  const robotAt = freeSpot(random, robotRadius, robotRadius + 0.2);
  const robot = { ...robotAt, heading: wrapAngle(random() * 2 * Math.PI) };
  const placed: Thing[] = [];
  for (const kind of LOOSE) {
    for (let tries = 0; ; tries++) {
      // Twenty square metres hold five small things easily; failing here is a bug, not a layout.
      if (tries > 1000) throw new Error(`no room for the ${kind.name} (seed ${seed})`);
      const at = freeSpot(random, kind.radius, kind.radius + 0.1);
      const clearOfRobot = dist(at, robot) >= robotRadius + kind.radius + 2 * GAP;
      if (clearOfRobot && placed.every((t) => dist(at, t.at) >= t.radius + kind.radius + GAP)) {
        placed.push({ ...kind, at });
        break;
      }
    }
  }
  return { robot, things: [SOFA_THING, ...placed] };
}

/** The things a move stops at besides the walls and the sofa (whose outline sweepDisc knows). */
export function obstaclesOf(things: readonly Thing[]): Obstacle[] {
  return things.filter((t) => t !== SOFA_THING).map((t) => ({ name: t.name, at: t.at, radius: t.radius }));
}
