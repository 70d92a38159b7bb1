/**
 * A validator for Home Assistant MQTT discovery messages, written from Home Assistant's own
 * configuration schemas for each component quackd publishes: the required keys, the keys allowed
 * (HA drops any other without a word, so a misspelt one is a feature that silently is not there),
 * their types and values, the rules between keys, and the abbreviations HA expands before it
 * validates (`stat_t` for `state_topic`, `dev` with `ids` for a device …).
 *
 * From the documentation (configuration variables of each page) and the schemas in
 * homeassistant/components/mqtt (schemas.py, entity.py, and one file per component):
 *   https://www.home-assistant.io/integrations/mqtt/#discovery-messages
 *   https://www.home-assistant.io/integrations/mqtt/#supported-abbreviations-in-mqtt-discovery-messages
 *   https://www.home-assistant.io/integrations/sensor.mqtt/
 *   https://www.home-assistant.io/integrations/binary_sensor.mqtt/
 *   https://www.home-assistant.io/integrations/button.mqtt/
 *   https://www.home-assistant.io/integrations/switch.mqtt/
 *   https://www.home-assistant.io/integrations/select.mqtt/
 *   https://www.home-assistant.io/integrations/text.mqtt/
 *   https://www.home-assistant.io/integrations/sensor/#device-class (units per device class)
 */
import { z } from 'zod';

/** The discovery abbreviations of every key the schemas below allow, as HA expands them. */
const ABBREVIATIONS: Readonly<Record<string, string>> = {
  avty: 'availability',
  avty_mode: 'availability_mode',
  avty_t: 'availability_topic',
  avty_tpl: 'availability_template',
  cmd_t: 'command_topic',
  cmd_tpl: 'command_template',
  def_ent_id: 'default_entity_id',
  dev: 'device',
  dev_cla: 'device_class',
  e: 'encoding',
  en: 'enabled_by_default',
  ent_cat: 'entity_category',
  ent_pic: 'entity_picture',
  exp_aft: 'expire_after',
  frc_upd: 'force_update',
  ic: 'icon',
  json_attr_t: 'json_attributes_topic',
  json_attr_tpl: 'json_attributes_template',
  lrst_val_tpl: 'last_reset_value_template',
  o: 'origin',
  obj_id: 'object_id',
  off_dly: 'off_delay',
  ops: 'options',
  opt: 'optimistic',
  p: 'platform',
  pl_avail: 'payload_available',
  pl_not_avail: 'payload_not_available',
  pl_off: 'payload_off',
  pl_on: 'payload_on',
  pl_prs: 'payload_press',
  ptrn: 'pattern',
  ret: 'retain',
  stat_cla: 'state_class',
  stat_off: 'state_off',
  stat_on: 'state_on',
  stat_t: 'state_topic',
  sug_dsp_prc: 'suggested_display_precision',
  t: 'topic',
  uniq_id: 'unique_id',
  unit_of_meas: 'unit_of_measurement',
  val_tpl: 'value_template',
};

const DEVICE_ABBREVIATIONS: Readonly<Record<string, string>> = {
  cns: 'connections',
  cu: 'configuration_url',
  hw: 'hw_version',
  ids: 'identifiers',
  mdl: 'model',
  mdl_id: 'model_id',
  mf: 'manufacturer',
  sa: 'suggested_area',
  sn: 'serial_number',
  sw: 'sw_version',
};

const ORIGIN_ABBREVIATIONS: Readonly<Record<string, string>> = { sw: 'sw_version', url: 'support_url' };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `payload` with its keys as HA reads them; an abbreviation given beside its full key is a problem (one would be lost). */
function expand(payload: Json, table: Readonly<Record<string, string>>, where: string, problems: string[]): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(payload)) {
    const full = table[key] ?? key;
    if (Object.hasOwn(out, full)) problems.push(`${where}${full} is given twice (as ${key} and as its ${key === full ? 'abbreviation' : 'full name'})`);
    out[full] = value;
  }
  return out;
}

/** The whole message as HA reads it: the entity's keys, the device's, the origin's and each availability entry's. */
export function expandDiscovery(payload: Json, problems: string[] = []): Json {
  const out = expand(payload, ABBREVIATIONS, '', problems);
  if (isObject(out['device'])) out['device'] = expand(out['device'], DEVICE_ABBREVIATIONS, 'device.', problems);
  if (isObject(out['origin'])) out['origin'] = expand(out['origin'], ORIGIN_ABBREVIATIONS, 'origin.', problems);
  if (Array.isArray(out['availability'])) out['availability'] = out['availability'].map((a, i) => (isObject(a) ? expand(a, ABBREVIATIONS, `availability.${i}.`, problems) : a));
  return out;
}

const template = z.string().min(1);
/** HA's valid_subscribe_topic/valid_publish_topic: no wildcard in a topic it publishes to; none in these either. */
const topic = z.string().min(1).regex(/^[^#+\0]+$/, 'a topic without wildcards');

const availability = z.object({ topic, payload_available: z.string().optional(), payload_not_available: z.string().optional(), value_template: template.optional() }).strict();

const device = z
  .object({
    identifiers: z.union([z.string(), z.array(z.string()).min(1)]).optional(),
    connections: z.array(z.tuple([z.string(), z.string()])).optional(),
    name: z.string().optional(),
    manufacturer: z.string().optional(),
    model: z.string().optional(),
    model_id: z.string().optional(),
    sw_version: z.string().optional(),
    hw_version: z.string().optional(),
    serial_number: z.string().optional(),
    suggested_area: z.string().optional(),
    configuration_url: z.url().optional(),
    via_device: z.string().optional(),
  })
  .strict()
  .refine((d) => d.identifiers !== undefined || d.connections !== undefined, 'a device needs identifiers or connections');

const origin = z.object({ name: z.string().min(1), sw_version: z.string().optional(), support_url: z.url().optional() }).strict();

/** MQTT_ENTITY_COMMON_SCHEMA and the availability schema: what every entity may carry. */
const common = {
  availability: z.array(availability).min(1).optional(),
  availability_mode: z.enum(['all', 'any', 'latest']).optional(),
  availability_topic: topic.optional(),
  availability_template: template.optional(),
  payload_available: z.string().optional(),
  payload_not_available: z.string().optional(),
  device: device.optional(),
  enabled_by_default: z.boolean().optional(),
  encoding: z.string().optional(),
  entity_category: z.enum(['config', 'diagnostic']).optional(),
  entity_picture: z.url().optional(),
  icon: z.string().regex(/^mdi:[a-z0-9-]+$/).optional(),
  json_attributes_template: template.optional(),
  json_attributes_topic: topic.optional(),
  name: z.string().nullable().optional(),
  object_id: z.string().optional(),
  default_entity_id: z.string().optional(),
  origin: origin.optional(),
  platform: z.literal('mqtt').optional(),
  qos: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
  unique_id: z.string().min(1).optional(),
};

/** MQTT_RW_SCHEMA: an entity that commands (command_topic required) and may follow a state. */
const readWrite = { command_topic: topic, retain: z.boolean().optional(), optimistic: z.boolean().optional(), state_topic: topic.optional() };

type Common = { availability?: unknown; availability_topic?: unknown; device?: unknown; unique_id?: unknown; json_attributes_template?: unknown; json_attributes_topic?: unknown };
const commonRules = <T extends Common>(e: T, ctx: z.RefinementCtx) => {
  // vol.Exclusive in schemas.py.
  if (e.availability !== undefined && e.availability_topic !== undefined) ctx.addIssue({ code: 'custom', message: 'availability and availability_topic must not be used together' });
  // HA ties an entity to a device only through its unique_id.
  if (e.device !== undefined && e.unique_id === undefined) ctx.addIssue({ code: 'custom', message: 'device needs unique_id' });
  if (e.json_attributes_template !== undefined && e.json_attributes_topic === undefined) ctx.addIssue({ code: 'custom', message: 'json_attributes_template needs json_attributes_topic' });
};

/** Units HA accepts for the sensor device classes quackd uses (sensor/const.py DEVICE_CLASS_UNITS). */
const UNITS: Record<string, readonly string[]> = { voltage: ['V', 'mV', 'µV', 'kV', 'MV'], frequency: ['Hz', 'kHz', 'MHz', 'GHz'], battery: ['%'] };

export const SensorSchema = z
  .object({
    ...common,
    state_topic: topic,
    device_class: z.enum(['battery', 'current', 'duration', 'enum', 'frequency', 'power', 'signal_strength', 'temperature', 'timestamp', 'voltage']).nullable().optional(),
    expire_after: z.int().positive().optional(),
    force_update: z.boolean().optional(),
    last_reset_value_template: template.optional(),
    options: z.array(z.string()).min(1).optional(),
    suggested_display_precision: z.int().min(0).optional(),
    state_class: z.enum(['measurement', 'measurement_angle', 'total', 'total_increasing']).optional(),
    unit_of_measurement: z.string().optional(),
    value_template: template.optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    commonRules(s, ctx);
    if (s.options !== undefined && s.device_class !== 'enum') ctx.addIssue({ code: 'custom', message: 'options need device_class enum' });
    if (s.device_class === 'enum' && (s.unit_of_measurement !== undefined || s.state_class !== undefined)) ctx.addIssue({ code: 'custom', message: 'an enum sensor has no unit or state_class' });
    const units = s.device_class != null ? UNITS[s.device_class] : undefined;
    if (units !== undefined && (s.unit_of_measurement === undefined || !units.includes(s.unit_of_measurement))) ctx.addIssue({ code: 'custom', message: `${String(s.device_class)} needs a unit of ${units.join(', ')}` });
  });

/** binary_sensor/__init__.py BinarySensorDeviceClass. */
const BINARY_CLASSES = ['battery', 'battery_charging', 'carbon_monoxide', 'cold', 'connectivity', 'door', 'garage_door', 'gas', 'heat', 'light', 'lock', 'moisture', 'motion', 'moving', 'occupancy', 'opening', 'plug', 'power', 'presence', 'problem', 'running', 'safety', 'smoke', 'sound', 'tamper', 'update', 'vibration', 'window'] as const;

export const BinarySensorSchema = z
  .object({
    ...common,
    state_topic: topic,
    device_class: z.enum(BINARY_CLASSES).nullable().optional(),
    expire_after: z.int().positive().optional(),
    force_update: z.boolean().optional(),
    off_delay: z.int().positive().optional(),
    payload_on: z.string().optional(),
    payload_off: z.string().optional(),
    value_template: template.optional(),
  })
  .strict()
  .superRefine(commonRules);

export const ButtonSchema = z
  .object({
    ...common,
    command_topic: topic,
    command_template: template.optional(),
    device_class: z.enum(['identify', 'restart', 'update']).nullable().optional(),
    payload_press: z.string().optional(),
    retain: z.boolean().optional(),
  })
  .strict()
  .superRefine(commonRules);

export const SwitchSchema = z
  .object({
    ...common,
    ...readWrite,
    command_template: template.optional(),
    device_class: z.enum(['outlet', 'switch']).nullable().optional(),
    payload_on: z.string().optional(),
    payload_off: z.string().optional(),
    state_off: z.string().optional(),
    state_on: z.string().optional(),
    value_template: template.optional(),
  })
  .strict()
  .superRefine(commonRules);

export const SelectSchema = z
  .object({
    ...common,
    ...readWrite,
    command_template: template.optional(),
    // Required; an empty list or one option is allowed.
    options: z.array(z.string()),
    value_template: template.optional(),
  })
  .strict()
  .superRefine(commonRules);

/** A text entity's state is at most this long (MAX_LENGTH_STATE_STATE). */
const STATE_MAX = 255;

export const TextSchema = z
  .object({
    ...common,
    ...readWrite,
    command_template: template.optional(),
    min: z.int().min(0).optional(),
    max: z.int().min(0).optional(),
    mode: z.enum(['text', 'password']).optional(),
    pattern: z.string().optional(),
    value_template: template.optional(),
  })
  .strict()
  .superRefine((t, ctx) => {
    commonRules(t, ctx);
    // valid_text_size_configuration in text.py.
    const [min, max] = [t.min ?? 0, t.max ?? STATE_MAX];
    if (min > max) ctx.addIssue({ code: 'custom', message: `min (${min}) must not exceed max (${max})` });
    if (max > STATE_MAX) ctx.addIssue({ code: 'custom', message: `max must be at most ${STATE_MAX}` });
    if (t.pattern !== undefined) {
      try {
        new RegExp(t.pattern);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'pattern is not a regular expression' });
      }
    }
  });

export const HA_SCHEMAS = { sensor: SensorSchema, binary_sensor: BinarySensorSchema, button: ButtonSchema, switch: SwitchSchema, select: SelectSchema, text: TextSchema } as const;
export type HaComponent = keyof typeof HA_SCHEMAS;

/** `<prefix>/<component>/[<node_id>/]<object_id>/config`, the ids of [a-zA-Z0-9_-]. */
const DISCOVERY_TOPIC = /^(?:[^/#+]+\/)*?(sensor|binary_sensor|button|switch|select|text)\/(?:[A-Za-z0-9_-]+\/)?[A-Za-z0-9_-]+\/config$/;

/** What is wrong with one retained discovery message as HA would read it: nothing when it is fine. */
export function discoveryProblems(topicName: string, payloadText: string): string[] {
  const m = DISCOVERY_TOPIC.exec(topicName);
  if (m === null) return [`${topicName}: not a discovery topic of a component this validator knows`];
  const component = m[1] as HaComponent;
  let payload: unknown;
  try {
    payload = JSON.parse(payloadText);
  } catch {
    return [`${topicName}: the payload is not JSON`];
  }
  if (!isObject(payload)) return [`${topicName}: the payload is not a JSON object`];
  const problems: string[] = [];
  const expanded = expandDiscovery(payload, problems);
  const checked = HA_SCHEMAS[component].safeParse(expanded);
  if (!checked.success) problems.push(...checked.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`));
  return problems.map((p) => `${topicName}: ${p}`);
}
