/**
 * The lookout room's synthetic camera (`camera: synthetic` on reachy-mini:mock and the rovers):
 * the picture a robot's camera would take of the room, read by the colour detector a real camera's
 * frames go through. Over 50 seeded layouts a body, each robot turns (and, with a head, tilts) to
 * face the ball as a pilot would, and wherever the room itself says the ball is in view and
 * nothing stands in the sight line, the detector finds it within ±5° and ±15 % of the room's own
 * answer. The other things are drawn too, and none of them is taken for the ball.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findBody } from '../../src/bodies/index.js';
import type { Body } from '../../src/bodies/body.js';
import { deg } from '../../src/bodies/microduck/sim2d/arena.js';
import { detectBall } from '../../src/vision/ball.js';

const SEEDS = Array.from({ length: 50 }, (_, i) => i + 1);

interface Placed {
  readonly name: string;
  readonly x: number;
  readonly y: number;
}

interface Seen {
  readonly thing: string;
  readonly bearing_deg: number;
  readonly distance_m: number;
}

/** Whether a thing's footprint (other than the ball) crosses the floor-plan line from `a` to the ball. */
function blocked(a: { x: number; y: number }, ball: Placed, things: readonly Placed[]): boolean {
  const radius: Record<string, number> = { lamp: 0.15, plant: 0.2, chair: 0.25, box: 0.2 };
  const [dx, dy] = [ball.x - a.x, ball.y - a.y];
  const len2 = dx * dx + dy * dy;
  return things.some((t) => {
    const r = radius[t.name];
    if (r === undefined) return false;
    const k = Math.max(0, Math.min(1, ((t.x - a.x) * dx + (t.y - a.y) * dy) / len2));
    return Math.hypot(a.x + k * dx - t.x, a.y + k * dy - t.y) < r + 0.07;
  });
}

/** Face the ball: where it is from the robot's front, and the tilt that centres it for a camera `height` up. */
function aimAt(ball: Seen, height: number): { yaw: number; pitch: number } {
  return { yaw: ball.bearing_deg, pitch: deg(Math.atan2(height - 0.06, ball.distance_m)) };
}

async function open(key: string, seed: number): Promise<Body> {
  const entry = findBody(key);
  assert.ok(entry !== undefined);
  return entry.load({ seed, settings: { camera: 'synthetic' } });
}

/** The room's own answer for the ball from where the robot stands, as report checks it (bearing from the front, distance). */
function truthOf(body: Body): { ball: Placed; things: Placed[]; at: { x: number; y: number }; front: number } {
  const state = body.frame().state as { things: Placed[]; base?: { x: number; y: number; heading_deg: number }; robot?: { x: number; y: number; heading_deg: number } };
  const at = state.base ?? state.robot;
  assert.ok(at !== undefined);
  const ball = state.things.find((t) => t.name === 'ball');
  assert.ok(ball !== undefined);
  return { ball, things: state.things, at, front: at.heading_deg };
}

const CASES: readonly { key: string; height: number; head: boolean }[] = [
  { key: 'reachy-mini:mock', height: 1.0, head: true },
  { key: 'xlerobot:sim', height: 1.1, head: true },
  { key: 'toddlerbot:sim', height: 0.5, head: true },
  { key: 'alohamini:sim', height: 0.9, head: false },
];

describe('the lookout room through a synthetic camera', () => {
  for (const { key, height, head } of CASES) {
    it(`${key}: facing the ball, the detector agrees with the room within ±5° and ±15 %, every seed it is in view and clear`, async () => {
      let checked = 0;
      const misses: string[] = [];
      for (const seed of SEEDS) {
        const body = await open(key, seed);
        try {
          assert.ok(body.eyes !== undefined, 'camera: synthetic gives the body eyes');
          const { ball, things, at } = truthOf(body);
          const dx = ball.x - at.x;
          const dy = ball.y - at.y;
          const { front } = truthOf(body);
          let bearing = deg(Math.atan2(dy, dx)) - front;
          bearing = ((bearing + 540) % 360) - 180;
          const aim = aimAt({ thing: 'ball', bearing_deg: bearing, distance_m: Math.hypot(dx, dy) }, height);
          let lensYaw = 0;
          if (key === 'reachy-mini:mock') {
            await body.perform({ verb: 'turn_body', args: { yaw: Math.max(-160, Math.min(160, aim.yaw)) } });
            await body.perform({ verb: 'look', args: { yaw: aim.yaw, pitch: Math.min(40, aim.pitch) } });
            lensYaw = aim.yaw;
          } else {
            await body.perform({ verb: 'turn', args: { degrees: bearing } });
            if (head) await body.perform({ verb: 'look', args: { yaw: 0, pitch: Math.min(45, aim.pitch) } });
          }
          const sightings = (await body.observe()).data['sightings'] as Seen[];
          const truth = sightings.find((s) => s.thing === 'ball');
          const seen = detectBall(await body.eyes.camera.grab(), body.eyes.ball);
          if (seen !== undefined && truth === undefined) misses.push(`seed ${seed}: the detector saw a ball the room does not show (${seen.bearing_deg.toFixed(1)}°)`);
          if (truth === undefined || blocked(at, ball, things)) continue;
          checked += 1;
          if (seen === undefined) {
            misses.push(`seed ${seed}: no ball found; the room has it at ${truth.bearing_deg}°, ${truth.distance_m} m`);
            continue;
          }
          // The lens points at the head's yaw from the front (a rover turned to face the ball: 0).
          const [bearingFromFront, d] = [lensYaw + seen.bearing_deg, seen.distance_m];
          const off = Math.abs(((bearingFromFront - truth.bearing_deg + 540) % 360) - 180);
          if (off > 5 || Math.abs(d / truth.distance_m - 1) > 0.15) misses.push(`seed ${seed}: detector ${bearingFromFront.toFixed(1)}°, ${d.toFixed(2)} m; room ${truth.bearing_deg}°, ${truth.distance_m} m`);
        } finally {
          await body.close();
        }
      }
      assert.deepEqual(misses, []);
      console.log(`${key}: ${checked} of ${SEEDS.length} layouts with the ball in view and clear`);
      assert.ok(checked >= 30, `only ${checked} of 50 layouts had the ball in view and clear`);
    });
  }
});
