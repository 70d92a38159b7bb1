/**
 * Words and numbers from a firmware state: the observation the pilot reads, the frame a
 * transcript keeps and the metrics a duck's success_when checks. Pure, so it is table-testable.
 */
import type { BridgeState } from '../../../bridge/protocol.js';
import type { Metrics } from '../../body.js';

/** Degrees between the IMU's measured gravity and straight down. */
export function tiltDeg(state: BridgeState): number {
  const [x, y, z] = state.accel;
  const g = Math.hypot(x, y, z);
  if (g < 1e-6) return 0;
  return (Math.acos(Math.min(1, Math.max(-1, z / g))) * 180) / Math.PI;
}

function feet(contacts: readonly [boolean, boolean]): string {
  if (contacts[0] && contacts[1]) return 'both feet on the ground';
  if (contacts[0]) return 'only the left foot on the ground';
  if (contacts[1]) return 'only the right foot on the ground';
  return 'no foot on the ground';
}

export function describeState(state: BridgeState): string {
  const tilt = tiltDeg(state);
  const posture = tilt < 10 ? `upright (tilt ${tilt.toFixed(1)}°)` : `tilted ${tilt.toFixed(0)}°`;
  return [
    `torque ${state.torque ? 'on (holding pose)' : 'off (limp)'}`,
    posture,
    feet(state.contacts),
    `battery ${state.battery_v.toFixed(2)} V`,
    `${state.quacks} quack${state.quacks === 1 ? '' : 's'} since the firmware started`,
  ].join(' · ');
}

export function stateMetrics(state: BridgeState): Metrics {
  return {
    battery_v: state.battery_v,
    tilt_deg: tiltDeg(state),
    torque: state.torque ? 1 : 0,
    firmware_quacks: state.quacks,
    targets_applied: state.targets,
    firmware_rx_crc_errors: state.rx.crc,
  };
}
