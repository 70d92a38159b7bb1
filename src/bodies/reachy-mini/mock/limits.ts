/**
 * Reachy Mini's published safety limits (the SDK's "Safety Limits": head pitch and roll ±40°,
 * head yaw ±180°, body yaw ±160°, at most 65° between head yaw and body yaw) and the clamping the
 * SDK does to the closest valid pose, said in words. Head yaw is in the world frame (the fixed
 * base's), as the body's is. Pure.
 */
import { clampTo, type Clamped } from '../../room/clamp.js';

export const LIMITS = { pitch: 40, roll: 40, yaw: 180, bodyYaw: 160, yawDelta: 65 } as const;

export interface HeadPose {
  /** Degrees left (+) of the base's front. */
  readonly yaw: number;
  /** Degrees down (+) or up (-). */
  readonly pitch: number;
  /** Degrees towards the head's right (+). */
  readonly roll: number;
}

export interface ClampedPose<T> {
  readonly pose: T;
  /** One per axis that was clamped. */
  readonly clamped: readonly Clamped[];
}

/** Head yaw within ±180° and within 65° of the body's yaw: the range it may reach now. */
function yawRange(bodyYaw: number): readonly [number, number] {
  return [Math.max(-LIMITS.yaw, bodyYaw - LIMITS.yawDelta), Math.min(LIMITS.yaw, bodyYaw + LIMITS.yawDelta)];
}

function clampYaw(yaw: number, bodyYaw: number): Clamped {
  const [lo, hi] = yawRange(bodyYaw);
  const held = Math.min(hi, Math.max(lo, yaw));
  // Which limit held it: the head's own ±180°, or the 65° it may lead the body by.
  const why = Math.abs(held) === LIMITS.yaw ? `the head's limit is ±${LIMITS.yaw}°` : `at most ${LIMITS.yawDelta}° from the body at ${Math.round(bodyYaw)}°; turn_body first`;
  return clampTo('yaw', yaw, lo, hi, why);
}

/** A head target held within the limits, given where the body is. */
export function clampHead(target: HeadPose, bodyYaw: number): ClampedPose<HeadPose> {
  const yaw = clampYaw(target.yaw, bodyYaw);
  const pitch = clampTo('pitch', target.pitch, -LIMITS.pitch, LIMITS.pitch, `the head's limit is ±${LIMITS.pitch}°`);
  const roll = clampTo('roll', target.roll, -LIMITS.roll, LIMITS.roll, `the head's limit is ±${LIMITS.roll}°`);
  return { pose: { yaw: yaw.value, pitch: pitch.value, roll: roll.value }, clamped: [yaw, pitch, roll] };
}

/**
 * A body yaw target held within ±160°, and the head carried along when the body would leave it
 * more than 65° behind (the head keeps where it looks while it can).
 */
export function clampBody(target: number, head: HeadPose): ClampedPose<{ readonly bodyYaw: number; readonly head: HeadPose }> {
  const body = clampTo('body yaw', target, -LIMITS.bodyYaw, LIMITS.bodyYaw, `the body's limit is ±${LIMITS.bodyYaw}°`);
  const [lo, hi] = yawRange(body.value);
  const carried = Math.min(hi, Math.max(lo, head.yaw));
  const note = Math.abs(carried - head.yaw) < 0.5 ? undefined : `head carried from ${Math.round(head.yaw)}° to ${Math.round(carried)}° (at most ${LIMITS.yawDelta}° from the body)`;
  return { pose: { bodyYaw: body.value, head: { ...head, yaw: carried } }, clamped: [body, ...(note !== undefined ? [{ value: carried, note }] : [])] };
}
