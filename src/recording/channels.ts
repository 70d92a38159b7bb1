/**
 * What a recording holds: each channel's topic, its schema and how its messages are encoded.
 * Foxglove's well-known schemas (foxglove.Log, foxglove.FrameTransforms, foxglove.SceneUpdate,
 * foxglove.CompressedImage) where one fits, so Foxglove's panels show them without setup, as JSON
 * with a JSON Schema. The control ticks' channels (50 messages a second each) are CDR with a
 * ros2msg schema, which Foxglove (and any ROS 2 tool) reads from the schema text alone:
 * sensor_msgs/msg/JointState for the joints, quackd's own small messages for the IMU and a tick's
 * timing with the safety stage's marks. CDR is written straight from the tick's numbers (no
 * objects, no JSON text): recording a walk as JSON cost the main thread ~200 µs a tick.
 * A live server (the Foxglove WebSocket protocol) advertises the same list.
 */
import { CompressedImage, FrameTransforms, Log, SceneUpdate } from '@foxglove/schemas/jsonschema.js';

export interface ChannelSpec {
  readonly topic: string;
  /** The schema's name, as Foxglove matches it (`foxglove.Log`). */
  readonly schemaName: string;
  /** The JSON Schema or the ros2msg definition (with its dependencies), as text. */
  readonly schema: string;
  readonly schemaEncoding: 'jsonschema' | 'ros2msg';
  readonly encoding: 'json' | 'cdr';
}

/** ros2msg's separator between a message and the definitions it uses. */
const uses = (...defs: readonly [string, string][]): string => defs.map(([name, text]) => `================================================================================\nMSG: ${name}\n${text}`).join('\n');
const HEADER: [string, string] = ['std_msgs/Header', 'builtin_interfaces/Time stamp\nstring frame_id'];
const TIME: [string, string] = ['builtin_interfaces/Time', 'int32 sec\nuint32 nanosec'];
const VECTOR3: [string, string] = ['geometry_msgs/Vector3', 'float64 x\nfloat64 y\nfloat64 z'];

/** ROS 2's joint state; quackd fills name and position (velocity and effort left empty). */
const JOINT_STATE = `std_msgs/Header header\nstring[] name\nfloat64[] position\nfloat64[] velocity\nfloat64[] effort\n${uses(HEADER, TIME)}`;
/**
 * The trunk's IMU as the loop read it, trunk frame: angular velocity (rad/s), gravity (a unit
 * vector) and the accelerometer (m/s², standing still ≈ (0, 0, +9.81); NaN where the body reads none).
 */
const IMU = `std_msgs/Header header\ngeometry_msgs/Vector3 gyro\ngeometry_msgs/Vector3 gravity\ngeometry_msgs/Vector3 accel\n${uses(HEADER, TIME, VECTOR3)}`;
/** One control tick: its timing, and which joints the safety stage limited (a target clamped to its range or cut to one period's travel). */
const CONTROL_TICK = [
  'std_msgs/Header header',
  '# ticks started before this one',
  'uint32 tick',
  '# how late the tick started against its slot',
  'float64 late_ms',
  '# how long its read, skill, send and advance took',
  'float64 work_ms',
  "# joints whose applied target differs from the skill's (clamped or step-limited)",
  'string[] limited',
  '# tick samples the recording lost so far (its queue was full)',
  'uint32 dropped',
  uses(HEADER, TIME),
].join('\n');

const json = (topic: string, schemaName: string, schema: object): ChannelSpec => ({ topic, schemaName, schema: JSON.stringify(schema), schemaEncoding: 'jsonschema', encoding: 'json' });
const cdr = (topic: string, schemaName: string, schema: string): ChannelSpec => ({ topic, schemaName, schema, schemaEncoding: 'ros2msg', encoding: 'cdr' });

/** Every channel a recording may have; a run registers the ones it uses. */
export const CHANNELS = {
  /** Every transcript line: prompts, tool calls, verb results, gates, budgets, errors. */
  log: json('/log', 'foxglove.Log', Log),
  /** What the skill asked for. */
  target: cdr('/joints/target', 'sensor_msgs/msg/JointState', JOINT_STATE),
  /** What was sent, after the safety stage. */
  applied: cdr('/joints/applied', 'sensor_msgs/msg/JointState', JOINT_STATE),
  /** What the joints read. */
  measured: cdr('/joints/measured', 'sensor_msgs/msg/JointState', JOINT_STATE),
  imu: cdr('/imu', 'quackd/msg/Imu', IMU),
  tick: cdr('/control/tick', 'quackd/msg/ControlTick', CONTROL_TICK),
  /** The trunk's pose in the room (`room` → `trunk`), where the body knows it. */
  tf: json('/tf', 'foxglove.FrameTransforms', FrameTransforms),
  /** The room: walls, sofa, ball, the things a lookout sees. */
  room: json('/room', 'foxglove.SceneUpdate', SceneUpdate),
  /** Each picture a run's camera took (a `snapshot`), the JPEG the pilot was sent. */
  camera: json('/camera', 'foxglove.CompressedImage', CompressedImage),
  /** The camera between snapshots, at `recordings.camera_fps` (camera-film.ts). */
  film: json('/camera/film', 'foxglove.CompressedImage', CompressedImage),
} as const satisfies Record<string, ChannelSpec>;

export type ChannelName = keyof typeof CHANNELS;

const utf8 = new TextEncoder();
/** A message's bytes as its channel encodes them: a CDR channel's message is its bytes already. */
export function encodeMessage(channel: ChannelName, message: unknown): Uint8Array {
  if (CHANNELS[channel].encoding === 'cdr') {
    if (!(message instanceof Uint8Array)) throw new Error(`${CHANNELS[channel].topic} takes CDR bytes`);
    return message;
  }
  return utf8.encode(JSON.stringify(message));
}
