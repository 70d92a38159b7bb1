/**
 * What a held Microduck says of itself on the runtime's bus (`body:report`), for the service's
 * status board and a dashboard: its battery (volts and charge), whether torque is on, whether the link to its
 * firmware is up. Said when it changes (the battery by a twentieth of a volt), never per state,
 * so a 50 Hz state stream is a handful of events a minute; torque also from the firmware's answer to
 * a torque call. Once the link is lost, torque is
 * unknown (null) until the firmware says again: its watchdog cuts torque when the heartbeats
 * stop, but nothing reaches quackd to say so, and `torque on` would be a guess.
 */
import type { BridgeLink } from '../../../bridge/channel.js';
import type { EventBus } from '../../../runtime/events.js';
import type { Body } from '../../body.js';
import { batteryPercent } from './battery.js';

const BATTERY_STEP_V = 0.05;

export function reportBody(link: BridgeLink, body: Body, robot: string, events: EventBus): void {
  let battery: number | undefined;
  let torque: boolean | undefined;
  let up: boolean | undefined;
  const say = (report: { battery_v?: number; torque?: boolean | null; link?: 'ok' | 'lost' }): void =>
    events.emit('body:report', { robot, ...report, ...(report.battery_v !== undefined ? { battery_pct: batteryPercent(report.battery_v) } : {}) });
  const linked = (ok: boolean): void => {
    if (up === ok) return;
    up = ok;
    if (ok) return say({ link: 'ok' });
    // The next state says torque again, whatever it was before.
    torque = undefined;
    say({ link: 'lost', torque: null });
  };
  link.on('state', (state) => {
    linked(true);
    const changed: { battery_v?: number; torque?: boolean } = {};
    if (battery === undefined || Math.abs(state.battery_v - battery) >= BATTERY_STEP_V) changed.battery_v = battery = Math.round(state.battery_v * 100) / 100;
    if (torque !== state.torque) changed.torque = torque = state.torque;
    if (Object.keys(changed).length > 0) say(changed);
  });
  // The firmware's read-back of a torque call, a state period sooner than a state says it: a run
  // that ends with torque off confirmed is shown off by the time it has ended.
  link.on('torque', (on) => {
    linked(true);
    if (torque === on) return;
    torque = on;
    say({ torque });
  });
  // A port that is back is not yet a link: the firmware behind it may be silent (off, stuck). Up
  // is its first state (or torque answer) after that, above.
  link.on('detached', () => linked(false));
  // The body also notices a firmware gone silent behind a port that stayed (no detach).
  body.onTrouble?.((t) => {
    if (t.kind === 'link-lost') linked(false);
  });
  const last = link.lastState();
  if (link.attached) linked(true);
  if (last !== undefined) {
    battery = Math.round(last.state.battery_v * 100) / 100;
    torque = last.state.torque;
    say({ battery_v: battery, torque });
  }
}
