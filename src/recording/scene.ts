/**
 * Where things are, as Foxglove's 3D panel draws them: the trunk's pose as a transform from the
 * `room` frame (foxglove.FrameTransforms), and the room itself (foxglove.SceneUpdate): sim2d's
 * living room (its walls and sofa, which the twin and the lookout room share) with what a
 * transcript frame says stands in it (the ball, a lookout's things). Pure: a frame's state in,
 * messages out; a frame that says nothing of a place gives no message.
 */
import { BALL_RADIUS, ROOM, SOFA } from '../bodies/microduck/sim2d/arena.js';
import type { TrunkPose } from '../control/plant.js';
import { isRecord } from '../is-record.js';
import { foxgloveTime, type FoxgloveTime } from './time.js';

/** The frames a robot's messages are in: its room (where it stands) and its trunk. */
export interface Frames {
  readonly room: string;
  readonly trunk: string;
}

/** A recording's frames, and a live view's of its one robot. */
export const FRAMES: Frames = { room: 'room', trunk: 'trunk' };

/**
 * One robot's frames where several share a view: Foxglove's 3D panel merges every transform it
 * hears into one tree, so two robots both saying room → trunk would draw one trunk jumping between
 * them. Prefixed by the robot, as ROS names each robot's frames (`den1/room`), each its own tree.
 */
export const framesOf = (robot: string): Frames => ({ room: `${robot}/room`, trunk: `${robot}/trunk` });

/** The trunk's pose in the room, as the control plant tells it. */
export type Pose3 = TrunkPose;

type Quaternion = { x: number; y: number; z: number; w: number };

/** ZYX (yaw, pitch, roll) Euler angles, as TrunkPose gives them, to a quaternion. */
export function quaternion(roll: number, pitch: number, yaw: number): Quaternion {
  const [cr, sr, cp, sp, cy, sy] = [Math.cos(roll / 2), Math.sin(roll / 2), Math.cos(pitch / 2), Math.sin(pitch / 2), Math.cos(yaw / 2), Math.sin(yaw / 2)];
  return { w: cr * cp * cy + sr * sp * sy, x: sr * cp * cy - cr * sp * sy, y: cr * sp * cy + sr * cp * sy, z: cr * cp * sy - sr * sp * cy };
}

export function trunkTransform(pose: Pose3, epochMs: number, frames: Frames = FRAMES): { transforms: object[] } {
  return {
    transforms: [{ timestamp: foxgloveTime(epochMs), parent_frame_id: frames.room, child_frame_id: frames.trunk, translation: { x: pose.x, y: pose.y, z: pose.z }, rotation: quaternion(pose.roll, pose.pitch, pose.yaw) }],
  };
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The robot's place in a transcript frame (`duck` or `robot`: x, y, z when known, heading_deg, tilt ignored). */
export function poseOfFrame(state: Readonly<Record<string, unknown>>): Pose3 | undefined {
  const at = state['duck'] ?? state['robot'];
  if (!isRecord(at)) return undefined;
  const [x, y, heading] = [num(at['x']), num(at['y']), num(at['heading_deg'])];
  if (x === undefined || y === undefined || heading === undefined) return undefined;
  return { x, y, z: num(at['z']) ?? 0, roll: 0, pitch: 0, yaw: (heading * Math.PI) / 180 };
}

const WALL = { height: 0.5, thickness: 0.05 };
const grey = { r: 0.85, g: 0.85, b: 0.8, a: 1 };
const still = { x: 0, y: 0, z: 0, w: 1 };

function cube(x: number, y: number, z: number, sx: number, sy: number, sz: number, color: object): object {
  return { pose: { position: { x, y, z }, orientation: still }, size: { x: sx, y: sy, z: sz }, color };
}

function entity(id: string, timestamp: FoxgloveTime, room: string, shapes: { cubes?: object[]; spheres?: object[]; texts?: object[] }): object {
  return { timestamp, frame_id: room, id, lifetime: { sec: 0, nsec: 0 }, frame_locked: false, metadata: [], arrows: [], cubes: shapes.cubes ?? [], spheres: shapes.spheres ?? [], cylinders: [], lines: [], triangles: [], texts: shapes.texts ?? [], models: [] };
}

/** The walls and the sofa: the same in every seed. */
function fixed(timestamp: FoxgloveTime, room: string): object[] {
  const [w, h] = [ROOM.x1 - ROOM.x0, ROOM.y1 - ROOM.y0];
  const t = WALL.thickness;
  const z = WALL.height / 2;
  const walls = [
    cube(ROOM.x0 + w / 2, ROOM.y0 - t / 2, z, w + 2 * t, t, WALL.height, grey),
    cube(ROOM.x0 + w / 2, ROOM.y1 + t / 2, z, w + 2 * t, t, WALL.height, grey),
    cube(ROOM.x0 - t / 2, ROOM.y0 + h / 2, z, t, h, WALL.height, grey),
    cube(ROOM.x1 + t / 2, ROOM.y0 + h / 2, z, t, h, WALL.height, grey),
  ];
  const sofa = cube((SOFA.x0 + SOFA.x1) / 2, (SOFA.y0 + SOFA.y1) / 2, 0.225, SOFA.x1 - SOFA.x0, SOFA.y1 - SOFA.y0, 0.45, { r: 0.45, g: 0.3, b: 0.55, a: 1 });
  return [entity('walls', timestamp, room, { cubes: walls }), entity('sofa', timestamp, room, { cubes: [sofa] })];
}

/** What a frame says stands on the floor: the ball (`ball`), a lookout room's `things` (the sofa is drawn already). */
function loose(state: Readonly<Record<string, unknown>>): { name: string; x: number; y: number }[] {
  const out: { name: string; x: number; y: number }[] = [];
  const ball = state['ball'];
  if (isRecord(ball) && num(ball['x']) !== undefined && num(ball['y']) !== undefined) out.push({ name: 'ball', x: num(ball['x']) ?? 0, y: num(ball['y']) ?? 0 });
  const things = state['things'];
  if (Array.isArray(things)) {
    for (const t of things) if (isRecord(t) && typeof t['name'] === 'string' && t['name'] !== 'sofa' && num(t['x']) !== undefined && num(t['y']) !== undefined) out.push({ name: t['name'], x: num(t['x']) ?? 0, y: num(t['y']) ?? 0 });
  }
  return out;
}

/** The room as one SceneUpdate: its fixed parts and the things a frame places, each labelled. */
export function roomScene(state: Readonly<Record<string, unknown>>, epochMs: number, frames: Frames = FRAMES): { deletions: object[]; entities: object[] } {
  const timestamp = foxgloveTime(epochMs);
  const things = loose(state).map((t) => {
    const r = t.name === 'ball' ? BALL_RADIUS : 0.12;
    const sphere = { pose: { position: { x: t.x, y: t.y, z: r }, orientation: still }, size: { x: 2 * r, y: 2 * r, z: 2 * r }, color: t.name === 'ball' ? { r: 1, g: 0.45, b: 0.1, a: 1 } : { r: 0.3, g: 0.6, b: 0.9, a: 0.8 } };
    const label = { pose: { position: { x: t.x, y: t.y, z: 2 * r + 0.08 }, orientation: still }, billboard: true, font_size: 14, scale_invariant: true, color: { r: 1, g: 1, b: 1, a: 1 }, text: t.name };
    return entity(t.name, timestamp, frames.room, { spheres: [sphere], texts: [label] });
  });
  return { deletions: [], entities: [...fixed(timestamp, frames.room), ...things] };
}
