/**
 * The config file's `mqtt:` section. `false` turns MQTT off; absent, `true` or no `url` means the
 * embedded broker (aedes) on 127.0.0.1; a `url` means an external broker (mosquitto, HA's add-on).
 * The schema only (the config loader imports it); src/mqtt/settings.ts reads files and fills in
 * the defaults.
 */
import { z } from 'zod';

/** A topic prefix of one or more levels: no wildcards, no empty level, no leading or trailing `/`. */
const topicPrefix = z.string().regex(/^[^#+/\s\0]+(\/[^#+/\s\0]+)*$/, 'a topic without wildcards (+, #), spaces or empty levels, e.g. quackd');

const TlsSchema = z
  .object({
    /** The broker's CA certificate (PEM), for a broker signed by your own CA. */
    ca: z.string().min(1).optional(),
    /** A client certificate and its key (PEM), for brokers that ask for one. */
    cert: z.string().min(1).optional(),
    key: z.string().min(1).optional(),
    /** false accepts any certificate: for a test bench only. */
    reject_unauthorized: z.boolean().optional(),
  })
  .strict()
  .refine((t) => (t.cert === undefined) === (t.key === undefined), { message: 'cert and key go together' });

const HomeAssistantSchema = z
  .object({
    enabled: z.boolean().optional(),
    discovery_prefix: topicPrefix.optional(),
    /** Where HA says `online` when it (re)starts: discovery is published again then. */
    status_topic: topicPrefix.optional(),
  })
  .strict();

/**
 * `false`/`true` as a section is short for `{ enabled: … }`. (A union of a boolean and an object
 * would report "Invalid input" for any mistake inside the object, not the field at fault.)
 */
const onOff = (v: unknown) => (typeof v === 'boolean' ? { enabled: v } : v);

const MqttObjectSchema = z
  .object({
    /** false turns MQTT off (`mqtt: false` says the same). */
    enabled: z.boolean().optional(),
    /** mqtt://host:1883 or mqtts://host:8883; absent: the embedded broker. */
    url: z.url({ protocol: /^mqtts?$/, error: 'expected an mqtt:// or mqtts:// URL' }).optional(),
    /** The embedded broker's port on 127.0.0.1 (ignored with a url). */
    port: z.int().min(1).max(65535).optional(),
    base_topic: topicPrefix.optional(),
    username: z.string().min(1).optional(),
    password: z.string().min(1).optional(),
    /** A file holding the password, mode 0600; `~/` and paths relative to the config file work. */
    password_file: z.string().min(1).optional(),
    tls: TlsSchema.optional(),
    /** MQTT protocol version: 5 (default with a url) or 4 (3.1.1; the embedded broker speaks only 4). */
    version: z.union([z.literal(4), z.literal(5)]).optional(),
    client_id: z.string().min(1).max(128).optional(),
    homeassistant: z.preprocess(onOff, HomeAssistantSchema).optional(),
    /** At most this many state messages a second per robot; newer states replace waiting ones. */
    state_hz: z.number().positive().max(50).optional(),
    /** How often `<base>/bridge/health` is published, in seconds. */
    health_interval_s: z.number().positive().max(86400).optional(),
  })
  .strict()
  .refine((m) => m.password === undefined || m.password_file === undefined, { message: 'give password or password_file, not both' })
  // mqtt.js picks TLS by the URL's scheme alone: with mqtt:// it ignores the certificates and sends the password in the clear.
  .refine((m) => (m.tls?.ca ?? m.tls?.cert) === undefined || m.url?.startsWith('mqtts:') === true, { message: 'certificates need an mqtts:// url (with mqtt:// nothing is encrypted)', path: ['tls'] });

export const MqttSectionSchema = z.preprocess(onOff, MqttObjectSchema);
export type MqttSection = z.infer<typeof MqttSectionSchema>;

export const MQTT_DEFAULTS = {
  port: 1883,
  baseTopic: 'quackd',
  stateHz: 5,
  healthIntervalS: 60,
  discoveryPrefix: 'homeassistant',
  statusTopic: 'homeassistant/status',
} as const;

