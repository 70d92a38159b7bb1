/**
 * A control tick as recording messages: joint states (the skill's targets, the targets applied
 * after the safety stage, the measured positions: foxglove.JointStates, one topic each, so a plot
 * sets them side by side), the IMU, the tick's timing with the joints the safety stage limited,
 * and the trunk's pose when the plant knows it. Pure; a live server sends the same messages.
 */
import type { TickRecord } from '../control/tick-ring.js';
import type { ChannelName } from './channels.js';
import { trunkTransform } from './scene.js';
import { foxgloveTime } from './time.js';

export interface ChannelMessage {
  readonly channel: ChannelName;
  readonly epochMs: number;
  readonly message: unknown;
}

/**
 * Values to a micro-unit (µrad, µs): far below any joint encoder's step (an STS3215 counts 1.5 mrad)
 * or the loop's clock, and short digits compress about twice as well as a double's seventeen.
 */
const micro = (v: number): number => Math.round(v * 1e6) / 1e6;

/** Joints with a value this tick (NaN: none, a tick that held or a failed read). */
function jointStates(names: readonly string[], values: Float64Array, timestamp: object): object | undefined {
  const joints: { name: string; position: number }[] = [];
  values.forEach((v, i) => {
    if (!Number.isNaN(v)) joints.push({ name: names[i] ?? `joint_${i}`, position: micro(v) });
  });
  return joints.length > 0 ? { timestamp, joints } : undefined;
}

/** A target the safety stage changed: clamped to the joint's range or cut to one period's travel. */
const LIMITED_BY = 1e-9;

export function tickMessages(names: readonly string[], tick: TickRecord, dropped: number): ChannelMessage[] {
  const at = tick.epochMs;
  const timestamp = foxgloveTime(at);
  const out: ChannelMessage[] = [];
  const push = (channel: ChannelName, message: object | undefined) => message !== undefined && out.push({ channel, epochMs: at, message });
  push('target', jointStates(names, tick.desired, timestamp));
  push('applied', jointStates(names, tick.applied, timestamp));
  push('measured', jointStates(names, tick.measured, timestamp));
  const [gx, gy, gz] = tick.gyro;
  const [ax, ay, az] = tick.gravity;
  if (!Number.isNaN(gx)) push('imu', { timestamp, gyro: { x: micro(gx), y: micro(gy), z: micro(gz) }, gravity: { x: micro(ax), y: micro(ay), z: micro(az) } });
  const limited = names.filter((_, i) => Math.abs((tick.desired[i] ?? NaN) - (tick.applied[i] ?? NaN)) > LIMITED_BY);
  push('tick', { timestamp, tick: tick.index, late_ms: Math.round(tick.lateMs * 1000) / 1000, work_ms: Math.round(tick.workMs * 1000) / 1000, limited, dropped });
  if (tick.trunk !== undefined) push('tf', trunkTransform(tick.trunk, at));
  return out;
}
