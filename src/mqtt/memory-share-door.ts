/**
 * Fleet memory (`memory.share` in the config) as one of `quackd serve`'s doors: its own link to
 * the fleet's broker (mqtt.url, with the config's login; or this quackd's embedded broker, with the
 * service's own login, which other quackds join with a login that has the memory right), the replicator over the runtime's memory store for the bodies this
 * quackd holds, and its line in `quackd status` and `quackd health`. A broker that is away is a
 * warning: runs and `remember` go on against the local store, and the difference goes out later.
 */
import { logger } from '../log.js';
import type { MemorySection } from '../memory/config.js';
import { sharePath } from '../memory/share/state.js';
import { SHARE_TOPIC } from '../memory/share/wire.js';
import type { MemoryStore } from '../memory/store.js';
import { Replicator, type SharedBody, type ShareStatus } from '../memory/share/replicator.js';
import type { HealthLine } from '../service/api.js';
import type { DoorLine, FrontDoor } from '../service/front-door.js';
import { printable } from '../text/printable.js';
import { SERVICE_USER, type MqttSection } from './config.js';
import { readCredentials } from './credentials.js';
import type { MemoryLink } from './memory-link.js';
import { hostPort, resolveMqttSettings, type MqttSettings } from './settings.js';

export interface MemoryShareDeps {
  readonly store: () => Promise<MemoryStore | undefined>;
  /** The bodies this quackd holds, each with the robot that holds it. */
  readonly bodies: () => readonly SharedBody[];
  readonly pollMs?: number;
  /** Where the embedded broker's logins are kept (credentials.ts): sharing through it uses the service's. */
  readonly dataDir?: string;
}

/** Where the link dials and with which login: the external broker's as configured, the embedded one's as the service. */
function fleetBroker(settings: MqttSettings, dataDir: string | undefined): { url: string; settings: MqttSettings } {
  if (settings.broker.kind === 'external') return { url: settings.broker.url, settings };
  // The mqtt door started before this one and made the service's password (serve.ts's order).
  const password = dataDir !== undefined ? readCredentials(dataDir)?.get(SERVICE_USER) : undefined;
  if (password === undefined) throw new Error('the embedded broker has no login for the service yet (did MQTT start?)');
  return { url: `mqtt://${hostPort(settings.broker.host, settings.broker.port)}`, settings: { ...settings, username: SERVICE_USER, password } };
}

/** `connected · 3 in, 5 out, 0 pending, 0 dropped · last sync 2026-12-02T15:02:01Z`. */
export function shareLine(s: ShareStatus): string {
  const counts = `${s.in} in, ${s.out} out, ${s.pending} pending, ${s.dropped} dropped`;
  return `${s.connected ? 'connected' : 'broker away'} · ${counts}${s.lastSync !== undefined ? ` · last sync ${s.lastSync}` : ''}`;
}

export function memoryShareDoor(memory: MemorySection | undefined, section: MqttSection | undefined, configDir: string, deps: MemoryShareDeps): FrontDoor | undefined {
  const share = memory?.share;
  if (share === undefined || share === false) return undefined;
  const log = logger('memory');
  let off: string | undefined;
  let link: MemoryLink | undefined;
  let replicator: Replicator | undefined;
  const value = (): { value: string; ok: boolean } => {
    if (off !== undefined) return { value: `off (${off})`, ok: false };
    const s = replicator?.status();
    if (s === undefined) return { value: 'not started', ok: false };
    return { value: shareLine(s) + (!s.connected && link?.reason !== undefined ? ` (${printable(link.reason)})` : ''), ok: s.connected };
  };
  return {
    name: 'memory share',
    async start() {
      try {
        const settings = resolveMqttSettings(section, configDir);
        const broker = settings !== undefined ? fleetBroker(settings, deps.dataDir) : undefined;
        if (broker === undefined) off = 'mqtt is off';
        const store = off === undefined ? await deps.store() : undefined;
        if (off === undefined && store === undefined) off = 'the memory store is unavailable';
        if (off !== undefined || store === undefined || broker === undefined) {
          log.warn({ reason: off }, 'memory share is off');
          return;
        }
        const { connectMemoryLink } = await import('./memory-link.js');
        link = connectMemoryLink(broker.url, broker.settings);
        replicator = new Replicator(store, link, { root: memory?.share_topic ?? SHARE_TOPIC, bodies: deps.bodies(), episodes: share === 'episodes', statePath: sharePath(store.dir), ...(deps.pollMs !== undefined ? { pollMs: deps.pollMs } : {}) });
        replicator.start();
      } catch (err) {
        off = printable((err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '');
        log.warn({ reason: off }, 'memory share is off');
      }
    },
    async stop() {
      await replicator?.stop();
      await link?.close();
    },
    status: (): DoorLine[] => {
      const v = value();
      return [{ label: 'memory share', ...v }];
    },
    health: (): HealthLine[] => {
      const v = value();
      return [{ check: 'memory share', status: v.ok ? 'ok' : 'warn', detail: v.value }];
    },
  };
}
