/**
 * The Home Assistant entities that act on a robot beyond its buttons (discovery.ts puts them on
 * the robot's device): a gate waiting, as a binary sensor whose attributes are the question, with
 * the confirm and deny buttons that answer it (available only while a gate waits); a select of
 * the ducks it can run, showing the one under way; a text that starts an ad-hoc goal; and its
 * battery as a charge, with the volts as an attribute. Each sends the JSON a person would send.
 */
import type { BodyEntry } from '../bodies/index.js';
import { DUCK_NAME } from './commands.js';

export type ControlComponent = 'binary_sensor' | 'button' | 'select' | 'text' | 'sensor';

export interface Control {
  readonly component: ControlComponent;
  readonly object: string;
  readonly payload: Record<string, unknown>;
  /** More availability than the device's: the gate's buttons only while a gate waits. */
  readonly availability?: Readonly<Record<string, unknown>>;
}

export interface ControlTopics {
  readonly robot: string;
  /** The robot's retained state (RobotStatus as JSON). */
  readonly state: string;
  /** The robot's `set`. */
  readonly set: string;
  /** `bridge/request/confirm`: a static payload names the robot, since a button's cannot name the verb. */
  readonly confirm: string;
}

const GATE = "{{ 'ON' if value_json.gate is defined else 'OFF' }}";

/** A gate waiting on the robot's run, and the buttons that answer it. */
export function gateControls(t: ControlTopics): Control[] {
  const waiting = { topic: t.state, value_template: "{{ 'online' if value_json.gate is defined else 'offline' }}" };
  const answer = (allowed: boolean): Control => ({
    component: 'button',
    object: allowed ? 'gate_confirm' : 'gate_deny',
    payload: { name: allowed ? 'Confirm' : 'Deny', command_topic: t.confirm, payload_press: JSON.stringify({ robot: t.robot, answer: allowed }), icon: allowed ? 'mdi:check-circle' : 'mdi:close-circle' },
    availability: waiting,
  });
  return [
    {
      component: 'binary_sensor',
      object: 'gate',
      payload: {
        name: 'Gate waiting',
        state_topic: t.state,
        value_template: GATE,
        // The question, its verb and since when; none when nothing waits.
        json_attributes_topic: t.state,
        json_attributes_template: '{{ value_json.gate | default({}) | tojson }}',
        icon: 'mdi:hand-back-right',
      },
    },
    answer(true),
    answer(false),
  ];
}

/**
 * A select of `ducks` (those MQTT can name) that starts one, showing the duck under way when it
 * is one of them (`None` otherwise, which HA reads as no option); none without a duck to offer.
 */
export function duckSelect(t: ControlTopics, ducks: readonly string[]): Control[] {
  const options = ducks.filter((d) => DUCK_NAME.test(d));
  if (options.length === 0) return [];
  const current = `{{ value_json.run.duck if value_json.run is defined and value_json.run.duck in ${JSON.stringify(options)} else 'None' }}`;
  return [{ component: 'select', object: 'duck', payload: { name: 'Run a duck', command_topic: t.set, command_template: "{{ {'run': value} | tojson }}", options, state_topic: t.state, value_template: current, icon: 'mdi:play-box-outline' } }];
}

/** HA keeps a text entity's value in its state, at most 255 characters. */
const GOAL_MAX = 255;

/** An ad-hoc goal, as `quackd run --goal` takes one. */
export function goalText(t: ControlTopics): Control[] {
  return [{ component: 'text', object: 'goal', payload: { name: 'Goal', command_topic: t.set, command_template: "{{ {'goal': value} | tojson }}", min: 1, max: GOAL_MAX, mode: 'text', icon: 'mdi:target' } }];
}

/** The battery's charge where the body reports its voltage, the volts as an attribute. */
export function batteryCharge(t: ControlTopics, body: BodyEntry): Control[] {
  if (!body.metrics.includes('battery_v')) return [];
  return [
    {
      component: 'sensor',
      object: 'battery_level',
      payload: {
        name: 'Battery',
        state_topic: t.state,
        value_template: '{{ value_json.battery_pct if value_json.battery_pct is defined else none }}',
        device_class: 'battery',
        unit_of_measurement: '%',
        state_class: 'measurement',
        json_attributes_topic: t.state,
        json_attributes_template: "{{ {'voltage': value_json.battery_v} | tojson if value_json.battery_v is defined else '{}' }}",
      },
    },
  ];
}
