/**
 * The runtime's typed event bus (zigbee2mqtt's model): what happened to robots and runs, for the
 * front doors that watch (the terminal, later MQTT state and MCP progress). A listener that throws
 * is logged and never reaches the emitter: the runtime must not fail because a dashboard did.
 */
import type { BodyKey } from '../bodies/body.js';
import type { ControlStats } from '../control/stats.js';
import type { TickRecord } from '../control/tick-ring.js';
import { logger } from '../log.js';
import type { Outcome, TranscriptEvent } from '../transcript/events.js';
import type { RobotStatus } from './robot-status.js';

export interface RuntimeEvents {
  'body:open': { readonly robot: string; readonly key: BodyKey };
  'body:close': { readonly robot: string; readonly key: BodyKey };
  /** `by`: who asked for the run, as src/runtime/holder.ts words it (`mqtt client ha-den`). */
  'run:start': { readonly robot: string; readonly key: BodyKey; readonly runId: string; readonly duck: string; readonly by: string };
  'run:end': { readonly robot: string; readonly key: BodyKey; readonly runId: string; readonly duck: string; readonly outcome: Outcome };
  /** A verb's result in a run (a step, or an LLM-call verb such as remember: step absent). */
  'run:step': { readonly robot: string; readonly runId: string; readonly step?: number; readonly verb: string; readonly label: string; readonly ok: boolean; readonly summary: string; /** the body's measured facts with the result (never the model's text), e.g. `ball_visible` */ readonly data?: Readonly<Record<string, unknown>> };
  /** A confirmation gate opened (`waiting`) or was answered; `allowed`, `how` and who answered (`by`, when someone did) once answered. */
  'run:gate': { readonly robot: string; readonly runId: string; readonly question: string; readonly verb: string; readonly state: 'waiting' | 'answered'; readonly allowed?: boolean; readonly how?: string; readonly by?: string };
  /** A run saved something to its body's memory (a note it remembered, the episode at its end). */
  'memory:saved': { readonly robot: string; readonly key: BodyKey; readonly runId: string; readonly kind: 'note' | 'episode'; readonly id?: string };
  /** A control loop's health, pushed by its worker every second or so, on a fall, and when it closes. */
  'control:stats': { readonly robot: string; readonly stats: ControlStats };
  /**
   * A control loop's ticks since the last batch (about ten a second), read from the worker's tick
   * ring: what each read, what its skill asked and what the safety stage applied. `dropped`: ticks
   * the ring lost since the loop started because they were not read in time (a recording's loss,
   * never the loop's); `lost`: how many of those just before this batch (a held body's loop
   * outlives the runs it records).
   */
  'control:ticks': { readonly robot: string; readonly joints: readonly string[]; readonly ticks: readonly TickRecord[]; readonly dropped: number; readonly lost: number };
  /** The trunk tilted past the fall threshold for the set number of ticks; `tick` is the one it was seen on. */
  'control:fell': { readonly robot: string; readonly tiltRad: number; readonly tick: number };
  /**
   * What a held body reports of itself when it changes: its battery (volts, and the charge they
   * mean), torque (null: unknown, the link was lost), the link to its firmware (or, for a robot
   * driven through a daemon, whether the daemon answers: `why` it does not, in one line).
   */
  'body:report': { readonly robot: string; readonly battery_v?: number; readonly battery_pct?: number; readonly torque?: boolean | null; readonly link?: 'ok' | 'lost'; readonly why?: string };
  /** A robot's status (src/service/status-board.ts) changed: a dashboard publishes it without polling. */
  'robot:status': { readonly robot: string; readonly status: RobotStatus };
  /** Every line of a run's transcript as the service wrote it (the service's runs only): the CLI's printer over the socket. */
  'run:event': { readonly robot: string; readonly runId: string; readonly event: TranscriptEvent };
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

  /** Whether anyone listens to `name`: an emitter whose event costs work to make skips it when not. */
  listened(name: keyof RuntimeEvents): boolean {
    return (this.listeners.get(name)?.size ?? 0) > 0;
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
