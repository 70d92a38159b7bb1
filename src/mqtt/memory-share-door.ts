/**
 * Fleet memory (`memory.share` in the config) as one of `quackd serve`'s doors: its own link to
 * the fleet's external broker, the replicator over the runtime's memory store for the bodies this
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
import type { MqttSection } from './config.js';
import type { MemoryLink } from './memory-link.js';
import { resolveMqttSettings } from './settings.js';

export interface MemoryShareDeps {
  readonly store: () => Promise<MemoryStore | undefined>;
  /** The bodies this quackd holds, each with the robot that holds it. */
  readonly bodies: () => readonly SharedBody[];
  readonly pollMs?: number;
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
      let url: string | undefined;
      try {
        const settings = resolveMqttSettings(section, configDir);
        if (settings === undefined) off = 'mqtt is off';
        else if (settings.broker.kind !== 'external') off = 'it needs the fleet’s broker (mqtt.url): the embedded one is this machine’s alone';
        else url = settings.broker.url;
        const store = off === undefined ? await deps.store() : undefined;
        if (off === undefined && store === undefined) off = 'the memory store is unavailable';
        if (off !== undefined || store === undefined || url === undefined || settings === undefined) {
          log.warn({ reason: off }, 'memory share is off');
          return;
        }
        const { connectMemoryLink } = await import('./memory-link.js');
        link = connectMemoryLink(url, settings);
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
