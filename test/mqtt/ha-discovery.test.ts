/**
 * The discovery validator (test/helpers/ha-discovery.ts) refuses what Home Assistant would drop or
 * refuse, and reads abbreviations as HA does: a validator that passes everything would prove nothing.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { discoveryProblems } from '../helpers/ha-discovery.js';

const device = { identifiers: ['quackd_den'], name: 'den' };
const ok = (topic: string, payload: Record<string, unknown>) => assert.deepEqual(discoveryProblems(topic, JSON.stringify(payload)), []);
const bad = (topic: string, payload: Record<string, unknown> | string, problem: RegExp) => {
  const problems = discoveryProblems(topic, typeof payload === 'string' ? payload : JSON.stringify(payload));
  assert.ok(problems.some((p) => problem.test(p)), `${JSON.stringify(payload)}: ${JSON.stringify(problems)}`);
};

it('reads abbreviations as HA expands them, in the entity, its device, its origin and its availability', () => {
  const full = { name: 'Status', unique_id: 'den_status', state_topic: 'q/den/state', value_template: '{{ value_json.activity }}', device, origin: { name: 'quackd', sw_version: '1' }, availability: [{ topic: 'q/bridge/state', payload_available: 'online' }] };
  ok('homeassistant/sensor/den/status/config', full);
  ok('homeassistant/sensor/den/status/config', { name: 'Status', uniq_id: 'den_status', stat_t: 'q/den/state', val_tpl: '{{ value_json.activity }}', dev: { ids: ['quackd_den'], name: 'den' }, o: { name: 'quackd', sw: '1' }, avty: [{ t: 'q/bridge/state', pl_avail: 'online' }] });
  bad('homeassistant/sensor/den/status/config', { ...full, stat_t: 'q/den/other' }, /state_topic is given twice/);
  bad('homeassistant/sensor/den/status/config', { ...full, device: { ids: ['x'], identifiers: ['y'] } }, /device\.identifiers is given twice/);
});

it('refuses a missing required key, an unknown key, a wrong value and a broken rule between keys', () => {
  bad('homeassistant/sensor/den/status/config', { name: 'Status' }, /state_topic: /);
  bad('homeassistant/button/den/stop/config', { name: 'Stop', command_topic: 'q/den/set', payload_pres: '{}' }, /payload_pres/);
  bad('homeassistant/select/den/duck/config', { command_topic: 'q/den/set' }, /options: /);
  bad('homeassistant/text/den/goal/config', { command_topic: 'q/den/set', max: 1000 }, /max must be at most 255/);
  bad('homeassistant/text/den/goal/config', { command_topic: 'q/den/set', min: 5, max: 2 }, /min \(5\) must not exceed max/);
  bad('homeassistant/text/den/goal/config', { command_topic: 'q/den/set', mode: 'secret' }, /mode: /);
  bad('homeassistant/binary_sensor/den/gate/config', { state_topic: 'q/den/state', device_class: 'waiting' }, /device_class: /);
  bad('homeassistant/sensor/den/battery/config', { state_topic: 'q/den/state', device_class: 'battery', unit_of_measurement: 'V' }, /battery needs a unit of %/);
  bad('homeassistant/switch/den/torque/config', { command_topic: 'q/den/#' }, /a topic without wildcards/);
  bad('homeassistant/sensor/den/status/config', { state_topic: 'q/den/state', device }, /device needs unique_id/);
  bad('homeassistant/sensor/den/status/config', { state_topic: 'q/den/state', json_attributes_template: '{{ value_json | tojson }}' }, /json_attributes_template needs json_attributes_topic/);
  bad('homeassistant/sensor/den/status/config', { state_topic: 'q/den/state', availability: [{ topic: 'a' }], availability_topic: 'b' }, /must not be used together/);
  bad('homeassistant/sensor/den/status/config', 'not json', /not JSON/);
  bad('homeassistant/light/den/status/config', { state_topic: 'q' }, /not a discovery topic/);
});
