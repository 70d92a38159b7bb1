/**
 * The living room of sim2d (arena.ts: ROOM, SOFA, BALL_RADIUS) built in MuJoCo around the duck:
 * a floor, four walls, the sofa as one box and a free ball. The model does not depend on the
 * seed: the seeded layout only sets the duck's and the ball's free joints (see plant.ts), so one
 * compiled model serves every seed. Two forms: the whole scene around quackd's own duck
 * (`livingRoomMjcf`), and the room alone in one frame (`roomFrameMjcf`), which MuJoCo attaches
 * to the world of a user's model (wasm.ts `compileFile`).
 */
import { BALL_RADIUS, ROOM, SOFA } from '../sim2d/arena.js';
import { CONTACT, duckBody, duckDefaults, duckHomeQpos, duckModelEnd } from './duck-mjcf.js';
import { HOME_POSE, TIMESTEP } from './duck-spec.js';

export const ROOM_NAMES = { ball: 'ball', ballFree: 'ball_free', home: 'home' } as const;

/**
 * The room around a user's model: its frame in roomFrameMjcf, and the prefix its names take once
 * attached, so they cannot clash with the user's (Open Duck scenes have their own `floor`).
 */
export const ATTACHED_ROOM = { frame: 'living_room', prefix: 'room:' } as const;

/**
 * A light hollow play ball, 12 cm across like sim2d's: 40 g (a PVC ball of that size weighs
 * 30–50 g), a thin shell's inertia (2/3·m·r²). Rolling friction 1 mm (a rolling-resistance
 * coefficient of ~0.017): hit at 1 m/s it slides, rolls off at ~0.55 m/s and slows by about
 * 0.06 m/s² (measured), so a kick carries it a few metres across a hard floor.
 */
export const BALL = { mass: 0.04, rollingFriction: 0.001 } as const;
const BALL_INERTIA = (2 / 3) * BALL.mass * BALL_RADIUS ** 2;

/** A sofa seat's height: taller than the duck's camera (~0.24 m), so it hides the ball. */
export const SOFA_HEIGHT = 0.45;
const WALL = { height: 0.5, thickness: 0.05 } as const;

const n = (v: number): string => String(Number(v.toFixed(6)));

function walls(contact: string): string {
  const cx = (ROOM.x0 + ROOM.x1) / 2;
  const cy = (ROOM.y0 + ROOM.y1) / 2;
  const hx = (ROOM.x1 - ROOM.x0) / 2 + WALL.thickness;
  const hy = (ROOM.y1 - ROOM.y0) / 2 + WALL.thickness;
  const t = WALL.thickness / 2;
  const h = WALL.height / 2;
  // Walls stand outside the room's rectangle, so sim2d's free space is the twin's free space.
  const wall = (name: string, x: number, y: number, sx: number, sy: number): string =>
    `<geom name="${name}" type="box" ${contact} pos="${n(x)} ${n(y)} ${n(h)}" size="${n(sx)} ${n(sy)} ${n(h)}" rgba="0.85 0.85 0.8 1"/>`;
  return [
    wall('wall_south', cx, ROOM.y0 - t, hx, t),
    wall('wall_north', cx, ROOM.y1 + t, hx, t),
    wall('wall_west', ROOM.x0 - t, cy, t, hy),
    wall('wall_east', ROOM.x1 + t, cy, t, hy),
  ].join('\n    ');
}

function floor(contact: string): string {
  return `<!-- Stiffer than MuJoCo's default solref (0.02 s): a duck standing or lying on the floor sinks under 2 mm. -->
    <geom name="floor" type="plane" ${contact} solref="0.01 1" pos="${n((ROOM.x0 + ROOM.x1) / 2)} ${n((ROOM.y0 + ROOM.y1) / 2)} 0" size="${n((ROOM.x1 - ROOM.x0) / 2 + 0.5)} ${n((ROOM.y1 - ROOM.y0) / 2 + 0.5)} 0.05" friction="0.8 0.0001 0.0001"/>`;
}

function sofa(contact: string): string {
  const [x, y, hx, hy] = [(SOFA.x0 + SOFA.x1) / 2, (SOFA.y0 + SOFA.y1) / 2, (SOFA.x1 - SOFA.x0) / 2, (SOFA.y1 - SOFA.y0) / 2];
  return `<geom name="sofa" type="box" ${contact} pos="${n(x)} ${n(y)} ${n(SOFA_HEIGHT / 2)}" size="${n(hx)} ${n(hy)} ${n(SOFA_HEIGHT / 2)}" rgba="0.35 0.45 0.6 1"/>`;
}

function ball(): string {
  return `<body name="${ROOM_NAMES.ball}">
      <freejoint name="${ROOM_NAMES.ballFree}"/>
      <inertial pos="0 0 0" mass="${n(BALL.mass)}" diaginertia="${n(BALL_INERTIA)} ${n(BALL_INERTIA)} ${n(BALL_INERTIA)}"/>
      <geom name="${ROOM_NAMES.ball}" type="sphere" size="${n(BALL_RADIUS)}" ${CONTACT.ball} condim="6" friction="0.6 0.001 ${n(BALL.rollingFriction)}" rgba="0.9 0.2 0.2 1"/>
    </body>`;
}

const LIGHT = '<light pos="2.5 2 3" dir="0 0 -1"/>';

/**
 * The home keyframe: the duck in the middle of the room facing +x with its feet on the floor, the
 * ball 1 m ahead of it. A seed's layout moves both from here.
 */
function keyframe(): string {
  const cx = (ROOM.x0 + ROOM.x1) / 2;
  const cy = (ROOM.y0 + ROOM.y1) / 2;
  const duck = duckHomeQpos(cx, cy);
  const ball = [cx + 1, cy, BALL_RADIUS, 1, 0, 0, 0];
  return `<key name="${ROOM_NAMES.home}" qpos="${[...duck, ...ball].map(n).join(' ')}" ctrl="${HOME_POSE.map(n).join(' ')}"/>`;
}

export interface RoomOptions {
  /** Servo stiffness, N·m/rad (default SERVO.kp). */
  readonly kp?: number;
}

/** The whole scene: compile once per plant. */
export function livingRoomMjcf(options: RoomOptions = {}): string {
  return `<mujoco model="microduck-living-room">
  <compiler angle="radian" autolimits="true"/>
  <!-- 5 ms steps, 4 per 50 Hz control period, as in training [sim-kit]. implicitfast keeps the
       servos' joint damping stable at that step without costing more than Euler. -->
  <option timestep="${n(TIMESTEP)}" integrator="implicitfast"/>
  <default>${duckDefaults(options.kp)}
  </default>
  <worldbody>
    ${LIGHT}
    ${floor(CONTACT.world)}
    ${walls(CONTACT.world)}
    ${sofa(CONTACT.world)}
    ${duckBody()}
    ${ball()}
  </worldbody>
${duckModelEnd(keyframe())}`;
}

/**
 * The room alone, everything in one frame (ATTACHED_ROOM.frame) for MuJoCo to attach to the world
 * of a user's model: the same walls, sofa and ball, a light, and a floor unless the model has one.
 * Its fixed geoms take the ball's contact bits (1 and 2), so they touch any of the model's geoms
 * that collide at all in MuJoCo's default group (bit 1), whatever groups the model uses itself.
 */
export function roomFrameMjcf(options: { readonly floor: boolean }): string {
  const contact = CONTACT.ball;
  return `<mujoco model="living-room">
  <worldbody>
    <frame name="${ATTACHED_ROOM.frame}">
    ${LIGHT}
    ${options.floor ? floor(contact) : ''}
    ${walls(contact)}
    ${sofa(contact)}
    ${ball()}
    </frame>
  </worldbody>
</mujoco>
`;
}
