/**
 * The twin's bumper: whether a wall or the sofa stands within stopping distance ahead of or
 * behind the duck, from sim2d's room geometry (the twin's walls and sofa are the same
 * rectangles). A walk that reaches one ends there, as sim2d's does, instead of walking the duck
 * into it until it falls. The ball is left out: it is light, and the twin's physics pushes it.
 */
import type { Proximity, TrunkPose } from '../../../control/plant.js';
import { ROOM, SOFA, type Rect, type Vec } from '../sim2d/arena.js';

/**
 * How far the duck reaches from its trunk's centre on the floor plan: the head and the soles,
 * 0.11–0.12 m (measured on the model's geoms). A walk stops with this much room left, so the
 * duck can still turn in place where it stopped.
 */
export const SWEPT_RADIUS = 0.12;
/** How far ahead the bumper looks: a stride's lurch after the policy lets go, with a margin. */
export const STOP_DISTANCE = 0.05;

/** Distance from p to the rectangle (0 inside it). */
function toRect(p: Vec, r: Rect): number {
  return Math.hypot(Math.max(r.x0 - p.x, 0, p.x - r.x1), Math.max(r.y0 - p.y, 0, p.y - r.y1));
}

/** Clearance from p to each obstacle: the room's walls (from inside) and the sofa. */
function clearances(p: Vec): readonly (readonly [string, number])[] {
  return [
    ['wall', Math.min(p.x - ROOM.x0, ROOM.x1 - p.x, p.y - ROOM.y0, ROOM.y1 - p.y)],
    ['sofa', toRect(p, SOFA)],
  ];
}

/**
 * Blocked one way when a step that way would bring the duck's reach into an obstacle and nearer
 * to it than it is now: a duck already close to a wall may still walk along it or away from it.
 */
export function proximityOf(trunk: TrunkPose): Proximity {
  const now = clearances(trunk);
  const blocker = (sign: 1 | -1): string | null => {
    const next = clearances({ x: trunk.x + sign * STOP_DISTANCE * Math.cos(trunk.yaw), y: trunk.y + sign * STOP_DISTANCE * Math.sin(trunk.yaw) });
    const hit = next.find(([, c], i) => c < SWEPT_RADIUS && c < (now[i]?.[1] ?? Infinity) - 1e-6);
    return hit?.[0] ?? null;
  };
  return { ahead: blocker(1), behind: blocker(-1) };
}
