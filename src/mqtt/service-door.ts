/**
 * The MQTT front door as one of `quackd serve`'s doors (src/service/front-door.ts): its settings
 * from the config's `mqtt:` section, its broker line in `quackd status` and `quackd health`. A
 * section that cannot be used (a password file open to others, a certificate that cannot be read)
 * is one log line, and the service goes on without MQTT; `quackd status` then says why it is off.
 */
import { logger } from '../log.js';
import type { HealthLine, ServiceApi } from '../service/api.js';
import type { DoorLine, FrontDoor } from '../service/front-door.js';
import { printable } from '../text/printable.js';
import { mosquittoAclHint } from './anonymous-check.js';
import type { MqttSection } from './config.js';
import type { MqttDoorOptions, MqttDoorStatus, MqttFrontDoor } from './front-door.js';
import { resolveMqttSettings, type MqttSettings } from './settings.js';

/** `connected to mqtt://broker.lan:1883 · 120 sent, 0 dropped`, and whether that is the door doing its job. */
export function brokerLine(s: MqttDoorStatus): { readonly value: string; readonly ok: boolean } {
  const why = s.reason !== undefined ? ` (${s.reason})` : '';
  const counts = ` · ${s.published} sent, ${s.dropped} dropped`;
  switch (s.state) {
    case 'online':
      return { value: `connected to ${s.broker}${counts}`, ok: true };
    case 'connecting':
      return { value: `connecting to ${s.broker}${why}`, ok: false };
    case 'offline':
      return { value: `unreachable: ${s.broker}${why}, retrying${counts}`, ok: false };
    case 'off':
      return { value: `off${why}`, ok: false };
    case 'stopped':
      return { value: 'stopped', ok: false };
  }
}

/** A broker that is away is a warning, never a failure: the runs go on, and systemd need not restart us. */
function lines(value: string, ok: boolean): { status: DoorLine[]; health: HealthLine[] } {
  return { status: [{ label: 'broker', value, ok }], health: [{ check: 'broker', status: ok ? 'ok' : 'warn', detail: value }] };
}

/**
 * The door for `section` (the config's `mqtt:`), or undefined when MQTT is off (`mqtt: false`).
 * `configDir`: where relative paths (password_file, tls) start.
 */
export function mqttServiceDoor(section: MqttSection | undefined, configDir: string, options: MqttDoorOptions = {}): (FrontDoor & { readonly mqtt: () => MqttFrontDoor | undefined }) | undefined {
  let settings: MqttSettings | undefined;
  try {
    settings = resolveMqttSettings(section, configDir);
  } catch (err) {
    const reason = printable((err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '');
    logger('mqtt').warn({ reason }, 'MQTT is off: the mqtt section cannot be used; the service goes on without it');
    const off = lines(`off (${reason})`, false);
    return { name: 'mqtt', mqtt: () => undefined, start: () => Promise.resolve(), stop: () => Promise.resolve(), status: () => off.status, health: () => off.health };
  }
  if (settings === undefined) return undefined;
  const ready = settings;
  let door: MqttFrontDoor | undefined;
  const now = () => {
    if (door === undefined) return lines('not started', false);
    const status = door.status();
    const line = brokerLine(status);
    const all = lines(line.value, line.ok);
    // Who may command through an external broker: its ACL's to say, quackd's to check.
    if (status.anonymous === 'open') all.health.push({ check: 'mqtt access', status: 'warn', detail: `a client with no login can command the robots; ${mosquittoAclHint(ready.baseTopic, ready.username)}` });
    else if (status.anonymous === 'refused') all.health.push({ check: 'mqtt access', status: 'ok', detail: 'a client with no login cannot command the robots' });
    return all;
  };
  return {
    name: 'mqtt',
    mqtt: () => door,
    async start(api: ServiceApi) {
      // mqtt.js (~18 MB resident) is loaded only by a service that uses MQTT, not under `mqtt: false`.
      const { createMqttFrontDoor } = await import('./front-door.js');
      door ??= createMqttFrontDoor(ready, api, options);
      await door.start();
    },
    stop: async () => door?.stop(),
    status: () => now().status,
    health: () => now().health,
  };
}
