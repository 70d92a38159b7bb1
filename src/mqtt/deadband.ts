/**
 * When a robot's retained state is worth publishing again: a field that measures something (a
 * rate, a voltage, an angle) when it moved by its deadband or more, any other field on any change.
 * A control loop's rate jitters at every snapshot (49.99, 50.02 Hz), so without deadbands an idle
 * duck's state went out about once a second; like zigbee2mqtt, the state is published on change
 * and there is no heartbeat (bridge/state and the broker's last will say whether we are alive).
 * The comparison is with what was last published, not with the previous value, so a slow drift
 * is published once it adds up to a deadband.
 */
import { isRecord } from '../is-record.js';

/** Deadbands by dotted path in RobotStatus (src/runtime/robot-status.ts), in the field's unit. */
export const STATE_DEADBANDS: Readonly<Record<string, number>> = {
  /** Hz: 1 % of a 50 Hz loop; a loop in trouble loses far more. */
  'loop.hz': 0.5,
  /** V: the step a held Microduck reports its battery by (bodies/microduck/jsonrpc/report.ts). */
  battery_v: 0.05,
  /** Degrees of a fall's tilt. */
  'fell.tilt_deg': 2,
};

/** Readings are rounded (8.20 - 8.15 is 0.04999…): a step of exactly the deadband counts. */
const ROUNDING = 1e-9;

/** Whether `next` differs from `published` by more than the deadbands allow. */
export function beyondDeadband(published: unknown, next: unknown, deadbands: Readonly<Record<string, number>> = STATE_DEADBANDS, path = ''): boolean {
  if (typeof published === 'number' && typeof next === 'number') {
    const band = deadbands[path];
    return band === undefined ? published !== next : Math.abs(next - published) >= band - ROUNDING;
  }
  if (isRecord(published) && isRecord(next)) {
    const keys = new Set([...Object.keys(published), ...Object.keys(next)]);
    for (const key of keys) if (beyondDeadband(published[key], next[key], deadbands, path === '' ? key : `${path}.${key}`)) return true;
    return false;
  }
  // Strings, booleans, a field that came or went, arrays: any change.
  return JSON.stringify(published) !== JSON.stringify(next);
}
