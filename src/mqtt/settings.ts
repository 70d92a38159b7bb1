/**
 * The settings the MQTT front door runs with, from the config file's `mqtt:` section: defaults
 * filled in, certificates read, the password taken from the file or from a 0600 password file (as
 * API keys are) and registered with the redactor before anything can log it.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { IClientOptions } from 'mqtt';
import { readKeyFile } from '../config/api-key.js';
import { expandPath } from '../config/pilot.js';
import { InputError } from '../errors.js';
import { registerSecret } from '../secrets.js';
import { DEFAULT_USERS, MQTT_DEFAULTS, type MqttRight, type MqttSection } from './config.js';

/** The settings the front door runs with: files read, defaults filled in. */
export interface MqttSettings {
  /** An external broker's URL, or the embedded broker's host and port. */
  readonly broker: { readonly kind: 'external'; readonly url: string } | { readonly kind: 'embedded'; readonly host: string; readonly port: number };
  readonly baseTopic: string;
  readonly username?: string;
  readonly password?: string;
  readonly tls?: { readonly ca?: Buffer; readonly cert?: Buffer; readonly key?: Buffer; readonly rejectUnauthorized: boolean };
  readonly version: 4 | 5;
  readonly clientId?: string;
  readonly homeassistant: { readonly enabled: boolean; readonly discoveryPrefix: string; readonly statusTopic: string };
  readonly stateHz: number;
  readonly healthIntervalMs: number;
  /** The embedded broker's logins besides the service's own, and what each may do. */
  readonly users: Readonly<Record<string, { readonly may: readonly MqttRight[] }>>;
  /** An external broker's gate answers count as a person's (mqtt.answers_are_people). */
  readonly answersArePeople: boolean;
}

function readPem(path: string, relativeTo: string, what: string): Buffer {
  const full = expandPath(path, relativeTo);
  try {
    return readFileSync(full);
  } catch (err) {
    throw new InputError(`mqtt.tls.${what}: ${full} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/**
 * The embedded broker's address as it is bound and dialled: `localhost` is 127.0.0.1, since a
 * name may resolve to ::1 for the client and 127.0.0.1 for the server; `[::1]` loses its brackets.
 */
function listenHost(host: string | undefined): string {
  if (host === undefined || host.toLowerCase() === 'localhost') return MQTT_DEFAULTS.host;
  return host.replace(/^\[(.*)\]$/, '$1');
}

/**
 * What `mqtt:` asks for, or undefined when MQTT is off. `configDir` is the config file's folder
 * (relative paths start there). Throws InputError for a password file that is open to others or
 * a certificate that cannot be read: the service says so in one line and goes on without MQTT.
 */
export function resolveMqttSettings(section: MqttSection | boolean | undefined, configDir: string): MqttSettings | undefined {
  const s = typeof section === 'boolean' ? { enabled: section } : (section ?? {});
  if (s.enabled === false) return undefined;
  const ha = s.homeassistant ?? {};
  let password = s.password;
  if (s.password_file !== undefined) password = readKeyFile(expandPath(s.password_file, configDir));
  registerSecret(password);
  // A password written into the URL (mqtt://user:pass@host) is a secret too.
  if (s.url !== undefined) registerSecret(decodeURIComponent(new URL(s.url).password) || undefined);
  const tls = s.tls;
  return {
    broker: s.url !== undefined ? { kind: 'external', url: s.url } : { kind: 'embedded', host: listenHost(s.listen?.host), port: s.listen?.port ?? s.port ?? MQTT_DEFAULTS.port },
    baseTopic: s.base_topic ?? MQTT_DEFAULTS.baseTopic,
    ...(s.username !== undefined ? { username: s.username } : {}),
    ...(password !== undefined ? { password } : {}),
    ...(tls !== undefined
      ? {
          tls: {
            ...(tls.ca !== undefined ? { ca: readPem(tls.ca, configDir, 'ca') } : {}),
            ...(tls.cert !== undefined ? { cert: readPem(tls.cert, configDir, 'cert') } : {}),
            ...(tls.key !== undefined ? { key: readPem(tls.key, configDir, 'key') } : {}),
            rejectUnauthorized: tls.reject_unauthorized ?? true,
          },
        }
      : {}),
    // aedes speaks 3.1.1 only, so the embedded broker is always spoken to in 4.
    version: s.url === undefined ? 4 : (s.version ?? 5),
    ...(s.client_id !== undefined ? { clientId: s.client_id } : {}),
    homeassistant: {
      enabled: ha.enabled ?? true,
      discoveryPrefix: ha.discovery_prefix ?? MQTT_DEFAULTS.discoveryPrefix,
      statusTopic: ha.status_topic ?? MQTT_DEFAULTS.statusTopic,
    },
    stateHz: s.state_hz ?? MQTT_DEFAULTS.stateHz,
    healthIntervalMs: (s.health_interval_s ?? MQTT_DEFAULTS.healthIntervalS) * 1000,
    users: s.users ?? DEFAULT_USERS,
    answersArePeople: s.answers_are_people ?? false,
  };
}

/** `127.0.0.1:1883`, `[::1]:1883`: an address and port as a URL writes them. */
export function hostPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/** The broker as a person reads it: `mqtt://host:1883` or `embedded 127.0.0.1:1883`. Never a password. */
export function describeBroker(settings: MqttSettings): string {
  if (settings.broker.kind === 'embedded') return `embedded ${hostPort(settings.broker.host, settings.broker.port)}`;
  const url = new URL(settings.broker.url);
  url.username = '';
  url.password = '';
  return url.toString().replace(/\/$/, '');
}

/**
 * `quackd config check`'s line for MQTT: what the service would connect to, or why it would go on
 * without MQTT (a password file open to others, a certificate it cannot read).
 */
export function mqttSummary(section: MqttSection | undefined, configDir: string): { readonly value: string; readonly problem?: string } {
  let settings: MqttSettings | undefined;
  try {
    settings = resolveMqttSettings(section, configDir);
  } catch (err) {
    return { value: 'off', problem: err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err) };
  }
  if (settings === undefined) return { value: 'off' };
  const ha = settings.homeassistant.enabled ? `HA discovery under ${settings.homeassistant.discoveryPrefix}/` : 'no HA discovery';
  const rights = (may: readonly string[]) => (may.length === 0 ? 'reads' : may.join('+'));
  // The embedded broker's logins and what each may do; their passwords are `quackd mqtt credentials`'s to show.
  const login =
    settings.broker.kind === 'embedded'
      ? ` · logins ${Object.entries(settings.users).map(([u, { may }]) => `${u} (${rights(may)})`).join(', ')}: quackd mqtt credentials`
      : settings.username !== undefined
        ? ` · user ${settings.username}${settings.password !== undefined ? ' (password set)' : ''}`
        : '';
  return { value: `${describeBroker(settings)} · MQTT ${settings.version === 5 ? '5' : '3.1.1'} · base ${settings.baseTopic}/ · ${ha}${login}` };
}

/** What mqtt.js needs to be let in: the login and the TLS material, each only when set. */
export function credentials(settings: MqttSettings): Pick<IClientOptions, 'username' | 'password' | 'ca' | 'cert' | 'key' | 'rejectUnauthorized'> {
  const tls = settings.tls;
  return {
    ...(settings.username !== undefined ? { username: settings.username } : {}),
    ...(settings.password !== undefined ? { password: settings.password } : {}),
    ...(tls?.ca !== undefined ? { ca: tls.ca } : {}),
    ...(tls?.cert !== undefined ? { cert: tls.cert } : {}),
    ...(tls?.key !== undefined ? { key: tls.key } : {}),
    ...(tls !== undefined ? { rejectUnauthorized: tls.rejectUnauthorized } : {}),
  };
}
