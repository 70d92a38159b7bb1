/**
 * A control tick as recording messages: joint states (the skill's targets, the targets applied
 * after the safety stage, the measured positions: sensor_msgs/msg/JointState, one topic each, so
 * a plot sets them side by side), the IMU, the tick's timing with the joints the safety stage
 * limited, and the trunk's pose when the plant knows it. The tick's channels are CDR, written
 * from the tick's arrays into one reused buffer; a live server sends the same bytes.
 */
import type { TickRecord } from '../control/tick-ring.js';
import type { ChannelName } from './channels.js';
import { CdrWriter } from './cdr.js';
import { FRAMES, trunkTransform, type Frames } from './scene.js';

export interface ChannelMessage {
  readonly channel: ChannelName;
  readonly epochMs: number;
  /** An object for a JSON channel, its bytes for a CDR one (see encodeMessage). */
  readonly message: unknown;
}

const cdr = new CdrWriter();

/** std_msgs/Header: the tick's time and the frame its values are in. */
function header(w: CdrWriter, epochMs: number, frame: string): CdrWriter {
  const sec = Math.floor(epochMs / 1000);
  return w.int32(sec).uint32(Math.min(999_999_999, Math.round((epochMs - sec * 1000) * 1e6))).string(frame);
}

/** Joints with a value this tick (NaN: none, a tick that held or a failed read); undefined when none has. */
export function jointState(names: readonly string[], values: Float64Array, epochMs: number): Uint8Array | undefined {
  let n = 0;
  for (const v of values) if (!Number.isNaN(v)) n += 1;
  if (n === 0) return undefined;
  const w = header(cdr.begin(), epochMs, '').length(n);
  values.forEach((v, i) => !Number.isNaN(v) && w.string(names[i] ?? `joint_${i}`));
  w.length(n);
  for (const v of values) if (!Number.isNaN(v)) w.float64(v);
  return w.length(0).length(0).end();
}

/** A target the safety stage changed: clamped to the joint's range or cut to one period's travel. */
const LIMITED_BY = 1e-9;

function controlTick(names: readonly string[], tick: TickRecord, dropped: number): Uint8Array {
  const limited = (i: number) => Math.abs((tick.desired[i] ?? NaN) - (tick.applied[i] ?? NaN)) > LIMITED_BY;
  let n = 0;
  for (let i = 0; i < names.length; i++) if (limited(i)) n += 1;
  const w = header(cdr.begin(), tick.epochMs, '').uint32(tick.index).float64(tick.lateMs).float64(tick.workMs).length(n);
  for (let i = 0; i < names.length; i++) if (limited(i)) w.string(names[i] ?? `joint_${i}`);
  return w.uint32(dropped).end();
}

export function tickMessages(names: readonly string[], tick: TickRecord, dropped: number, frames: Frames = FRAMES): ChannelMessage[] {
  const at = tick.epochMs;
  const out: ChannelMessage[] = [];
  const push = (channel: ChannelName, message: object | undefined) => message !== undefined && out.push({ channel, epochMs: at, message });
  push('target', jointState(names, tick.desired, at));
  push('applied', jointState(names, tick.applied, at));
  push('measured', jointState(names, tick.measured, at));
  const [gx, gy, gz] = tick.gyro;
  const [dx, dy, dz] = tick.gravity;
  const [ax, ay, az] = tick.accel;
  if (!Number.isNaN(gx)) push('imu', header(cdr.begin(), at, frames.trunk).float64(gx).float64(gy).float64(gz).float64(dx).float64(dy).float64(dz).float64(ax).float64(ay).float64(az).end());
  push('tick', controlTick(names, tick, dropped));
  if (tick.trunk !== undefined) push('tf', trunkTransform(tick.trunk, at, frames));
  return out;
}
