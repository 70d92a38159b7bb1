/**
 * `<base>/bridge/info` (retained), zigbee2mqtt's bridge/info: which quackd this is (version, the
 * commit when it runs from a clone, when its code was built), the machine, the broker, the log
 * level, the config file as written with its secrets taken out, and the robots it serves.
 * Published at start and again when one of these changes (a robot joins the fleet).
 */
import { arch, cpus, release, totalmem, version as osVersion } from 'node:os';
import type { ConfigFile } from '../config/file.js';
import { isRecord } from '../is-record.js';
import { redact } from '../secrets.js';
import type { RobotStatus } from '../service/api.js';

export interface BridgeInfoFacts {
  readonly version: string;
  readonly commit?: string;
  /** When the running code was built (src/service/build.ts). */
  readonly build: string;
  readonly logLevel: string;
  /** The broker as a person reads it (never a password) and the protocol spoken to it. */
  readonly mqtt: { readonly server: string; readonly version: 4 | 5; readonly baseTopic: string };
  readonly configFile?: string;
  /** publicConfig() of the config file. */
  readonly config?: Readonly<Record<string, unknown>>;
}

/** A URL without the login written into it (mqtt://user:pass@host, https://user:key@host). */
function withoutLogin(url: unknown): unknown {
  if (typeof url !== 'string') return url;
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return url;
  }
}

/**
 * The config file as written, without its secrets: the MQTT password, a login inside a URL, and
 * anything registered as a secret (API keys, the password read from password_file) wherever it
 * appears. Paths to key and password files stay: they say where a secret is, not what it is.
 */
export function publicConfig(config: ConfigFile): Record<string, unknown> {
  const copy = structuredClone(config) as Record<string, unknown>;
  const { mqtt, pilot } = copy;
  if (isRecord(mqtt)) {
    delete mqtt['password'];
    if (mqtt['url'] !== undefined) mqtt['url'] = withoutLogin(mqtt['url']);
  }
  if (isRecord(pilot) && pilot['base_url'] !== undefined) pilot['base_url'] = withoutLogin(pilot['base_url']);
  return JSON.parse(redact(JSON.stringify(copy))) as Record<string, unknown>;
}

export function bridgeInfo(facts: BridgeInfoFacts, robots: readonly RobotStatus[]): Record<string, unknown> {
  const cpu = cpus();
  return {
    version: facts.version,
    ...(facts.commit !== undefined ? { commit: facts.commit } : {}),
    build: facts.build,
    os: { version: `${osVersion()} - ${release()} - ${arch()}`, node_version: process.version, cpus: `${[...new Set(cpu.map((c) => c.model))].join(' | ')} (x${cpu.length})`, memory_mb: Math.round(totalmem() / 1024 / 1024) },
    mqtt: { server: facts.mqtt.server, version: facts.mqtt.version, base_topic: facts.mqtt.baseTopic },
    log_level: facts.logLevel,
    ...(facts.configFile !== undefined ? { config_file: facts.configFile } : {}),
    config: facts.config ?? {},
    robots: robots.map((r) => ({ name: r.robot, body: r.key })),
  };
}
