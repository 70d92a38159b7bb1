/**
 * The runtime's typed event bus (zigbee2mqtt's model): what happened to robots and runs, for the
 * front doors that watch (the terminal, later MQTT state and MCP progress). A listener that throws
 * is logged and never reaches the emitter: the runtime must not fail because a dashboard did.
 */
import type { BodyKey } from '../bodies/body.js';
import type { ControlStats } from '../control/stats.js';
import { logger } from '../log.js';
import type { Outcome } from '../transcript/events.js';

export interface RuntimeEvents {
  'body:open': { readonly robot: string; readonly key: BodyKey };
  'body:close': { readonly robot: string; readonly key: BodyKey };
  'run:start': { readonly robot: string; readonly key: BodyKey; readonly runId: string; readonly duck: string };
  'run:end': { readonly robot: string; readonly key: BodyKey; readonly runId: string; readonly outcome: Outcome };
  /** A control loop's health, pushed by its worker every second or so, on a fall, and when it closes. */
  'control:stats': { readonly robot: string; readonly stats: ControlStats };
  /** The trunk tilted past the fall threshold for the set number of ticks; `tick` is the one it was seen on. */
  'control:fell': { readonly robot: string; readonly tiltRad: number; readonly tick: number };
}

type Listener<K extends keyof RuntimeEvents> = (event: RuntimeEvents[K]) => void;

export class EventBus {
  private readonly listeners = new Map<keyof RuntimeEvents, Set<(event: never) => void>>();

  /** Listens to `name`; returns the function that stops listening. */
  on<K extends keyof RuntimeEvents>(name: K, listener: Listener<K>): () => void {
    const set = this.listeners.get(name) ?? new Set();
    set.add(listener as (event: never) => void);
    this.listeners.set(name, set);
    return () => set.delete(listener as (event: never) => void);
  }

  emit<K extends keyof RuntimeEvents>(name: K, event: RuntimeEvents[K]): void {
    for (const listener of this.listeners.get(name) ?? []) {
      try {
        (listener as Listener<K>)(event);
      } catch (err) {
        logger('runtime').warn({ err, event: name }, 'an event listener failed');
      }
    }
  }
}
