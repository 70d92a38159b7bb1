/**
 * The config file's `mqtt:` section. `false` turns MQTT off; absent, `true` or no `url` means the
 * embedded broker (aedes) on 127.0.0.1; a `url` means an external broker (mosquitto, HA's add-on).
 * The schema only (the config loader imports it); src/mqtt/settings.ts reads files and fills in
 * the defaults.
 */
import { BlockList, isIP } from 'node:net';
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

/** 127.0.0.0/8 and ::1 (IPv4-mapped forms included), by net's own address parser. */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Whether `host` (an address, [::1], or localhost) is this machine only. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (bare.toLowerCase() === 'localhost') return true;
  const family = isIP(bare);
  return family !== 0 && LOOPBACK.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Where the embedded broker listens. Loopback only: it has logins and topic rights now, but no
 * TLS, so a password would cross the network in the clear.
 */
const ListenSchema = z
  .object({
    host: z
      .string()
      .min(1)
      .refine(isLoopback, {
        error: (issue) => `${String(issue.input)} is not loopback: the embedded broker has no TLS, so its passwords would cross the network in the clear; use 127.0.0.1 (or ::1, localhost), or a broker with TLS (mqtt.url) for Home Assistant elsewhere`,
      })
      .optional(),
    port: z.int().min(1).max(65535).optional(),
  })
  .strict();

/**
 * What an MQTT user of the embedded broker may do beyond reading robots' state: run and stop
 * robots, answer their gates, read and write the fleet's memory (`memory.share_topic`; another
 * quackd sharing memory through this broker).
 */
export const MQTT_RIGHTS = ['command', 'confirm', 'memory'] as const;
export type MqttRight = (typeof MQTT_RIGHTS)[number];

/** A login of the embedded broker's, as Home Assistant or Node-RED would use it. */
const mqttUserName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'a user name (letters, digits, ., -, _)');

const MqttUserSchema = z
  .object({
    /** `[command]` runs, stops and switches torque; `[confirm]` answers gates as a person would; `[memory]` reads and writes fleet memory; `[]` reads only. */
    may: z.array(z.enum(MQTT_RIGHTS)).readonly(),
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
    /** The embedded broker's port on 127.0.0.1 (ignored with a url); `listen.port` says the same. */
    port: z.int().min(1).max(65535).optional(),
    /** The embedded broker's address: host (loopback only, for now) and port. */
    listen: ListenSchema.optional(),
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
    /**
     * The embedded broker's logins besides the service's own, each with what it may do; their
     * passwords are made at first start (`quackd mqtt credentials` shows them). Default: one
     * `homeassistant` login that reads only.
     */
    users: z.record(mqttUserName, MqttUserSchema).optional(),
    /**
     * With an external broker (which quackd cannot see logins of): whether a gate answered over
     * MQTT counts as a person's answer. Default false: recorded as answered over MQTT, not by a person.
     */
    answers_are_people: z.boolean().optional(),
    /** At most this many state messages a second per robot; newer states replace waiting ones. */
    state_hz: z.number().positive().max(50).optional(),
    /** How often `<base>/bridge/health` is published, in seconds. */
    health_interval_s: z.number().positive().max(86400).optional(),
  })
  .strict()
  .refine((m) => m.password === undefined || m.password_file === undefined, { message: 'give password or password_file, not both' })
  .refine((m) => m.users === undefined || m.url === undefined, { message: 'users are the embedded broker\'s logins; an external broker (url) keeps its own (see README: MQTT, who may do what)', path: ['users'] })
  .refine((m) => m.users?.[SERVICE_USER] === undefined, { message: '"quackd" is the service\'s own login', path: ['users'] })
  .refine((m) => m.listen === undefined || m.url === undefined, { message: 'listen is where the embedded broker listens; with a url quackd uses that broker and starts none', path: ['listen'] })
  .refine((m) => m.port === undefined || m.listen?.port === undefined, { message: 'give port or listen.port, not both', path: ['listen', 'port'] })
  // mqtt.js picks TLS by the URL's scheme alone: with mqtt:// it ignores the certificates and sends the password in the clear.
  .refine((m) => (m.tls?.ca ?? m.tls?.cert) === undefined || m.url?.startsWith('mqtts:') === true, { message: 'certificates need an mqtts:// url (with mqtt:// nothing is encrypted)', path: ['tls'] });

export const MqttSectionSchema = z.preprocess(onOff, MqttObjectSchema);

/** The service's own login at the embedded broker: the only one that publishes quackd's state, events and discovery. */
export const SERVICE_USER = 'quackd';
/** Home Assistant's login at the embedded broker, by the name README and `quackd mqtt credentials` give it. */
export const HA_LOGIN = 'homeassistant';
/** Who may log in when `users:` is not given: Home Assistant, reading only. */
export const DEFAULT_USERS: Readonly<Record<string, { readonly may: readonly MqttRight[] }>> = { [HA_LOGIN]: { may: [] } };
export type MqttSection = z.infer<typeof MqttSectionSchema>;

export const MQTT_DEFAULTS = {
  host: '127.0.0.1',
  port: 1883,
  baseTopic: 'quackd',
  stateHz: 5,
  healthIntervalS: 60,
  discoveryPrefix: 'homeassistant',
  statusTopic: 'homeassistant/status',
} as const;

