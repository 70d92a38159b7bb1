/**
 * What a recording holds: each channel's topic, its schema and how its messages are encoded.
 * Foxglove's well-known schemas (foxglove.Log, foxglove.JointStates, foxglove.FrameTransforms,
 * foxglove.SceneUpdate, foxglove.CompressedImage) where one fits, so Foxglove's panels show them without setup; quackd's
 * own small schemas for what none fits (the IMU, a tick's timing and the safety stage's marks).
 * Messages are JSON with a JSON Schema: the simplest encoding Foxglove reads with no schema
 * compiler. A live server (the Foxglove WebSocket protocol) advertises the same list.
 */
import { CompressedImage, FrameTransforms, JointStates, Log, SceneUpdate } from '@foxglove/schemas/jsonschema.js';

export interface ChannelSpec {
  readonly topic: string;
  /** The schema's name, as Foxglove matches it (`foxglove.Log`). */
  readonly schemaName: string;
  /** The JSON Schema, as text. */
  readonly schema: string;
  readonly encoding: 'json';
}

const vector3 = { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' }, z: { type: 'number' } }, required: ['x', 'y', 'z'] };
const time = { type: 'object', title: 'time', properties: { sec: { type: 'integer', minimum: 0 }, nsec: { type: 'integer', minimum: 0, maximum: 999_999_999 } } };

/** The trunk's IMU as the loop read it: angular velocity (rad/s) and gravity (a unit vector), trunk frame. */
const IMU_SCHEMA = {
  title: 'quackd.Imu',
  type: 'object',
  properties: { timestamp: time, gyro: vector3, gravity: vector3 },
  required: ['timestamp', 'gyro', 'gravity'],
};

/** One control tick: its timing, and which joints the safety stage limited (a target clamped to its range or cut to one period's travel). */
const TICK_SCHEMA = {
  title: 'quackd.ControlTick',
  type: 'object',
  properties: {
    timestamp: time,
    tick: { type: 'integer', description: 'ticks started before this one' },
    late_ms: { type: 'number', description: 'how late the tick started against its slot' },
    work_ms: { type: 'number', description: 'how long its read, skill, send and advance took' },
    limited: { type: 'array', items: { type: 'string' }, description: 'joints whose applied target differs from the skill’s (clamped or step-limited)' },
    dropped: { type: 'integer', description: 'tick samples the recording lost so far (its queue was full)' },
  },
  required: ['timestamp', 'tick', 'late_ms', 'work_ms', 'limited', 'dropped'],
};

const json = (topic: string, schemaName: string, schema: object): ChannelSpec => ({ topic, schemaName, schema: JSON.stringify(schema), encoding: 'json' });

/** Every channel a recording may have; a run registers the ones it uses. */
export const CHANNELS = {
  /** Every transcript line: prompts, tool calls, verb results, gates, budgets, errors. */
  log: json('/log', 'foxglove.Log', Log),
  /** What the skill asked for. */
  target: json('/joints/target', 'foxglove.JointStates', JointStates),
  /** What was sent, after the safety stage. */
  applied: json('/joints/applied', 'foxglove.JointStates', JointStates),
  /** What the joints read. */
  measured: json('/joints/measured', 'foxglove.JointStates', JointStates),
  imu: json('/imu', IMU_SCHEMA.title, IMU_SCHEMA),
  tick: json('/control/tick', TICK_SCHEMA.title, TICK_SCHEMA),
  /** The trunk's pose in the room (`room` → `trunk`), where the body knows it. */
  tf: json('/tf', 'foxglove.FrameTransforms', FrameTransforms),
  /** The room: walls, sofa, ball, the things a lookout sees. */
  room: json('/room', 'foxglove.SceneUpdate', SceneUpdate),
  /** Each picture a run's camera took (a `snapshot`), the JPEG the pilot was sent. */
  camera: json('/camera', 'foxglove.CompressedImage', CompressedImage),
} as const satisfies Record<string, ChannelSpec>;

export type ChannelName = keyof typeof CHANNELS;
