/**
 * Home Assistant MQTT discovery: each robot a device (model = its body key) behind the quackd
 * bridge device, with sensors (run status, last outcome; battery and loop rate where the body has
 * them), a button per starter the body can run and one to stop, a torque switch where the body
 * reports torque and the service can switch it, and the controls of discovery-controls.ts (a gate
 * waiting and its answers, a select of ducks, a goal). Every entity is available only while both
 * the bridge and its robot are online. Commands go to the robot's `set` topic (a gate's answers
 * to `bridge/request/confirm`) as the JSON a person would send.
 */
import type { BodyEntry } from '../bodies/index.js';
import { findBody, robotCan } from '../bodies/index.js';
import { runnableDucks } from '../ducks/runnable.js';
import { batteryCharge, duckSelect, gateControls, goalText, type Control, type ControlTopics } from './discovery-controls.js';
import type { RobotStatus } from '../service/api.js';
import { VERSION } from '../version.js';
import type { MqttRight } from './config.js';
import type { Topics } from './topics.js';

export const COMPONENTS = ['sensor', 'binary_sensor', 'button', 'switch', 'select', 'text'] as const;
export type Component = (typeof COMPONENTS)[number];

export interface DiscoveryMessage {
  readonly topic: string;
  readonly component: Component;
  readonly payload: Readonly<Record<string, unknown>>;
}

export interface DiscoveryContext {
  readonly base: string;
  readonly prefix: string;
  readonly topics: Topics;
  readonly canSwitchTorque: boolean;
  /** The ducks a robot can run by name (starters and the user's own), for its select; the starters alone without it. */
  readonly ducks?: (robot: string) => readonly string[];
  /**
   * What Home Assistant's login may do, where quackd keeps the logins (the embedded broker's
   * `homeassistant`): an entity whose command the broker would refuse (and close HA's connection
   * for) is not offered. Undefined with another broker, whose ACL quackd cannot read: all are.
   */
  readonly haMay?: readonly MqttRight[];
}

/** The entities HA's login may use: a command is `confirm`'s on the gate's topic, `command`'s elsewhere. */
function usable(ctx: DiscoveryContext, messages: DiscoveryMessage[]): DiscoveryMessage[] {
  const may = ctx.haMay;
  if (may === undefined) return messages;
  const confirm = ctx.topics.bridgeRequest('confirm');
  return messages.filter(({ payload }) => payload['command_topic'] === undefined || may.includes(payload['command_topic'] === confirm ? 'confirm' : 'command'));
}

const ACTIVITIES = ['idle', 'running', 'stopping', 'fallen', 'offline'];
const OUTCOMES = ['none', 'success', 'failure', 'budget', 'interrupted', 'error'];

/** HA's node and object ids take letters, digits, _ and -: the base topic may hold others. */
const id = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, '_');

export function nodeId(base: string, robot: string): string {
  return `${id(base)}_${id(robot)}`;
}

/** The starters this body can run (the same check a run makes), by name; a flock is no one robot's button. */
export function runnableStarters(body: BodyEntry): string[] {
  return runnableDucks(body, robotCan(body, {}), undefined, 'starter');
}

const origin = { name: 'quackd', sw_version: VERSION };

function bridgeDevice(ctx: DiscoveryContext): Record<string, unknown> {
  return { identifiers: [nodeId(ctx.base, 'bridge')], name: `quackd (${ctx.base})`, model: 'quackd service', manufacturer: 'quackd', sw_version: VERSION };
}

/** The bridge device: what every robot's device hangs from, with a button that stops them all. */
export function bridgeDiscovery(ctx: DiscoveryContext): DiscoveryMessage[] {
  const node = nodeId(ctx.base, 'bridge');
  return usable(ctx, [
    {
      topic: `${ctx.prefix}/button/${node}/stop_all/config`,
      component: 'button',
      payload: {
        name: 'Stop all robots',
        unique_id: `${node}_stop_all`,
        command_topic: ctx.topics.bridgeRequest('stop'),
        payload_press: '{}',
        icon: 'mdi:stop-circle',
        availability: [{ topic: ctx.topics.bridgeState, payload_available: 'online', payload_not_available: 'offline' }],
        device: bridgeDevice(ctx),
        origin,
      },
    },
  ]);
}

/** One robot's entities. A body key that is not in the catalog gets the status sensors only. */
export function robotDiscovery(status: RobotStatus, ctx: DiscoveryContext, starters: (body: BodyEntry) => string[] = runnableStarters): DiscoveryMessage[] {
  const robot = status.robot;
  const node = nodeId(ctx.base, robot);
  const body = findBody(status.key);
  const device = {
    identifiers: [node],
    name: robot,
    model: status.key,
    manufacturer: 'quackd',
    sw_version: VERSION,
    via_device: nodeId(ctx.base, 'bridge'),
  };
  const common = {
    availability: [
      { topic: ctx.topics.bridgeState, payload_available: 'online', payload_not_available: 'offline' },
      { topic: ctx.topics.robotAvailability(robot), payload_available: 'online', payload_not_available: 'offline' },
    ],
    availability_mode: 'all',
    device,
    origin,
  };
  const state = ctx.topics.robotState(robot);
  const set = ctx.topics.robotSet(robot);
  const entity = (component: Component, object: string, payload: Record<string, unknown>, availability?: Control['availability']): DiscoveryMessage => ({
    topic: `${ctx.prefix}/${component}/${node}/${object}/config`,
    component,
    payload: { ...payload, unique_id: `${node}_${object}`, ...common, ...(availability !== undefined ? { availability: [...common.availability, availability] } : {}) },
  });
  const controls: ControlTopics = { robot, state: ctx.topics.robotState(robot), set: ctx.topics.robotSet(robot), confirm: ctx.topics.bridgeRequest('confirm') };
  const place = (list: readonly Control[]): DiscoveryMessage[] => list.map((c) => entity(c.component, c.object, c.payload, c.availability));
  const out = [
    entity('sensor', 'activity', { name: 'Status', state_topic: state, value_template: '{{ value_json.activity }}', device_class: 'enum', options: ACTIVITIES, icon: 'mdi:robot' }),
    entity('sensor', 'last_outcome', {
      name: 'Last outcome',
      state_topic: state,
      value_template: "{{ value_json.lastOutcome.status if value_json.lastOutcome is defined else 'none' }}",
      device_class: 'enum',
      options: OUTCOMES,
      json_attributes_topic: state,
      json_attributes_template: '{{ value_json.lastOutcome | default({}) | tojson }}',
    }),
    entity('button', 'stop', { name: 'Stop', command_topic: set, payload_press: JSON.stringify({ stop: true }), icon: 'mdi:stop' }),
    ...place(gateControls(controls)),
  ];
  if (body === undefined) return usable(ctx, out);
  out.push(...place(batteryCharge(controls, body)), ...place(duckSelect(controls, ducksOf(robot, body, ctx, starters))), ...place(goalText(controls)));
  if (body.metrics.includes('battery_v')) {
    out.push(
      entity('sensor', 'battery', {
        name: 'Battery voltage',
        state_topic: state,
        value_template: '{{ value_json.battery_v if value_json.battery_v is defined else none }}',
        device_class: 'voltage',
        unit_of_measurement: 'V',
        state_class: 'measurement',
        suggested_display_precision: 2,
        entity_category: 'diagnostic',
      }),
    );
  }
  if (body.policies === true) {
    out.push(
      entity('sensor', 'loop_rate', {
        name: 'Control loop rate',
        state_topic: state,
        value_template: '{{ value_json.loop.hz if value_json.loop is defined else none }}',
        device_class: 'frequency',
        unit_of_measurement: 'Hz',
        state_class: 'measurement',
        entity_category: 'diagnostic',
      }),
    );
  }
  if (ctx.canSwitchTorque && body.metrics.includes('torque')) {
    out.push(
      entity('switch', 'torque', {
        name: 'Torque',
        command_topic: set,
        state_topic: state,
        payload_on: JSON.stringify({ torque: true }),
        payload_off: JSON.stringify({ torque: false }),
        // What the body last read back; unknown (None) while it has said nothing, as after a lost link.
        value_template: "{% if value_json.torque is boolean %}{{ 'ON' if value_json.torque else 'OFF' }}{% else %}None{% endif %}",
        state_on: 'ON',
        state_off: 'OFF',
        icon: 'mdi:engine',
      }),
    );
  }
  for (const duck of starters(body)) {
    out.push(entity('button', `run_${id(duck)}`, { name: `Run ${duck}`, command_topic: set, payload_press: JSON.stringify({ run: duck }), icon: 'mdi:play' }));
  }
  return usable(ctx, out);
}

/** The robot's ducks for its select: the service's list, else the starters (a robot the service cannot resolve has no more). */
function ducksOf(robot: string, body: BodyEntry, ctx: DiscoveryContext, starters: (body: BodyEntry) => string[]): readonly string[] {
  try {
    return ctx.ducks?.(robot) ?? starters(body);
  } catch {
    return starters(body);
  }
}

/** A discovery topic of ours (so a forged device list can never make us clear someone else's). */
export function isOurDiscoveryTopic(topic: string, ctx: DiscoveryContext): boolean {
  if (!topic.startsWith(`${ctx.prefix}/`)) return false;
  const rest = topic.slice(ctx.prefix.length + 1).split('/');
  return rest.length === 4 && (COMPONENTS as readonly string[]).includes(rest[0] ?? '') && (rest[1] ?? '').startsWith(`${id(ctx.base)}_`) && /^[A-Za-z0-9_-]+$/.test(rest[2] ?? '') && rest[3] === 'config';
}
