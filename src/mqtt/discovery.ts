/**
 * Home Assistant MQTT discovery: each robot a device (model = its body key) behind the quackd
 * bridge device, with sensors (run status, last outcome; battery and loop rate where the body has
 * them), a button per starter the body can run and one to stop, and a torque switch where the body
 * reports torque and the service can switch it. Every entity is available only while both the
 * bridge and its robot are online. Commands go to the robot's `set` topic as the JSON a person
 * would send.
 */
import type { BodyEntry } from '../bodies/index.js';
import { findBody } from '../bodies/index.js';
import { runnableDucks } from '../ducks/runnable.js';
import type { RobotStatus } from '../service/api.js';
import { VERSION } from '../version.js';
import type { Topics } from './topics.js';

export type Component = 'sensor' | 'button' | 'switch';

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
  return runnableDucks(body, undefined, 'starter');
}

const origin = { name: 'quackd', sw_version: VERSION };

function bridgeDevice(ctx: DiscoveryContext): Record<string, unknown> {
  return { identifiers: [nodeId(ctx.base, 'bridge')], name: `quackd (${ctx.base})`, model: 'quackd service', manufacturer: 'quackd', sw_version: VERSION };
}

/** The bridge device: what every robot's device hangs from, with a button that stops them all. */
export function bridgeDiscovery(ctx: DiscoveryContext): DiscoveryMessage[] {
  const node = nodeId(ctx.base, 'bridge');
  return [
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
  ];
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
  const entity = (component: Component, object: string, payload: Record<string, unknown>): DiscoveryMessage => ({
    topic: `${ctx.prefix}/${component}/${node}/${object}/config`,
    component,
    payload: { ...payload, unique_id: `${node}_${object}`, ...common },
  });
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
  ];
  if (body === undefined) return out;
  if (body.metrics.includes('battery_v')) {
    out.push(
      entity('sensor', 'battery', {
        name: 'Battery',
        state_topic: state,
        value_template: '{{ value_json.battery_v if value_json.battery_v is defined else none }}',
        device_class: 'voltage',
        unit_of_measurement: 'V',
        state_class: 'measurement',
        suggested_display_precision: 2,
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
        value_template: "{{ 'ON' if value_json.torque else 'OFF' }}",
        state_on: 'ON',
        state_off: 'OFF',
        icon: 'mdi:engine',
      }),
    );
  }
  for (const duck of starters(body)) {
    out.push(entity('button', `run_${id(duck)}`, { name: `Run ${duck}`, command_topic: set, payload_press: JSON.stringify({ run: duck }), icon: 'mdi:play' }));
  }
  return out;
}

/** A discovery topic of ours (so a forged device list can never make us clear someone else's). */
export function isOurDiscoveryTopic(topic: string, ctx: DiscoveryContext): boolean {
  if (!topic.startsWith(`${ctx.prefix}/`)) return false;
  const rest = topic.slice(ctx.prefix.length + 1).split('/');
  return rest.length === 4 && (rest[0] === 'sensor' || rest[0] === 'button' || rest[0] === 'switch') && (rest[1] ?? '').startsWith(`${id(ctx.base)}_`) && /^[A-Za-z0-9_-]+$/.test(rest[2] ?? '') && rest[3] === 'config';
}
