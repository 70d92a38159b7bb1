/**
 * Home Assistant's MQTT discovery payloads as its documentation describes them (the sensor,
 * button and switch integrations' configuration variables, the shared availability, device and
 * origin maps), strict: a misspelt key, a wrong type or a unit HA refuses for a device class fails.
 */
import { z } from 'zod';

const template = z.string().min(1);
const topic = z.string().regex(/^[^#+]+$/, 'a topic without wildcards');

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
    configuration_url: z.string().optional(),
    via_device: z.string().optional(),
  })
  .strict()
  .refine((d) => d.identifiers !== undefined || d.connections !== undefined, 'a device needs identifiers or connections');

const origin = z.object({ name: z.string().min(1), sw_version: z.string().optional(), support_url: z.string().optional() }).strict();

const entity = {
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
  entity_picture: z.string().optional(),
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

type Entity = { availability?: unknown; availability_topic?: unknown; device?: unknown; unique_id?: unknown; json_attributes_template?: unknown; json_attributes_topic?: unknown };
const entityRules = <T extends Entity>(e: T, ctx: z.RefinementCtx) => {
  if (e.availability !== undefined && e.availability_topic !== undefined) ctx.addIssue({ code: 'custom', message: 'availability and availability_topic must not be used together' });
  // HA ties an entity to a device only through its unique_id.
  if (e.device !== undefined && e.unique_id === undefined) ctx.addIssue({ code: 'custom', message: 'device needs unique_id' });
  if (e.json_attributes_template !== undefined && e.json_attributes_topic === undefined) ctx.addIssue({ code: 'custom', message: 'json_attributes_template needs json_attributes_topic' });
};

/** Units HA accepts for the sensor device classes quackd uses. */
const UNITS: Record<string, readonly string[]> = { voltage: ['V', 'mV', 'µV', 'kV', 'MV'], frequency: ['Hz', 'kHz', 'MHz', 'GHz'], battery: ['%'] };

export const SensorSchema = z
  .object({
    ...entity,
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
    entityRules(s, ctx);
    if (s.options !== undefined && s.device_class !== 'enum') ctx.addIssue({ code: 'custom', message: 'options need device_class enum' });
    if (s.device_class === 'enum' && (s.unit_of_measurement !== undefined || s.state_class !== undefined)) ctx.addIssue({ code: 'custom', message: 'an enum sensor has no unit or state_class' });
    const units = s.device_class != null ? UNITS[s.device_class] : undefined;
    if (units !== undefined && (s.unit_of_measurement === undefined || !units.includes(s.unit_of_measurement))) ctx.addIssue({ code: 'custom', message: `${String(s.device_class)} needs a unit of ${units.join(', ')}` });
  });

export const ButtonSchema = z
  .object({
    ...entity,
    command_topic: topic,
    command_template: template.optional(),
    device_class: z.enum(['identify', 'restart', 'update']).nullable().optional(),
    payload_press: z.string().optional(),
    retain: z.boolean().optional(),
  })
  .strict()
  .superRefine(entityRules);

export const SwitchSchema = z
  .object({
    ...entity,
    command_topic: topic,
    command_template: template.optional(),
    device_class: z.enum(['outlet', 'switch']).nullable().optional(),
    optimistic: z.boolean().optional(),
    payload_on: z.string().optional(),
    payload_off: z.string().optional(),
    retain: z.boolean().optional(),
    state_off: z.string().optional(),
    state_on: z.string().optional(),
    state_topic: topic.optional(),
    value_template: template.optional(),
  })
  .strict()
  .superRefine(entityRules);

export const HA_SCHEMAS = { sensor: SensorSchema, button: ButtonSchema, switch: SwitchSchema } as const;

/** Discovery topic: `<prefix>/<component>/<node_id>/<object_id>/config`, ids of [a-zA-Z0-9_-]. */
export const DISCOVERY_TOPIC = /^[^/]+(\/[^/]+)*\/(sensor|button|switch)\/[A-Za-z0-9_-]+\/[A-Za-z0-9_-]+\/config$/;
