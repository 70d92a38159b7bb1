/**
 * The service's line in the journal every 5 minutes: runs and steps since the last line, the
 * control loops' rate and their missed periods, what the front doors dropped. One info line, so
 * `journalctl -u quackd` shows a service that is alive and how it is doing without per-tick noise
 * (the control loop logs nothing per tick; its detail is at debug). The figures come from a
 * function (`busFigures` counts them off the event bus) and are totals since the service started;
 * the line says what changed since the previous one.
 */
import type { ModuleLogger } from '../log.js';
import type { EventBus } from '../runtime/events.js';
import { loopTargetHz } from '../runtime/robot-status.js';
import type { FrontDoor } from './front-door.js';

export interface LoopFigures {
  readonly robot: string;
  /** The loop's last published rate. */
  readonly hz: number;
  readonly periodMs: number;
  /** It rested in its last window (ControlStats.restingMs): `hz` is then its resting rate. */
  readonly restingMs?: number;
  /** Since the loop started (a loop opened again starts from 0). */
  readonly missed: number;
  readonly overruns: number;
}

export interface SummaryFigures {
  /** Runs ended since the service started. */
  readonly runs: number;
  /** Numbered steps of runs since the service started. */
  readonly steps: number;
  /** The control loops running now. */
  readonly loops: readonly LoopFigures[];
  /** Messages a front door dropped rather than wait (MQTT while its broker is away), since start. */
  readonly dropped?: number;
}

export interface Summary {
  stop(): void;
}

export const SUMMARY_EVERY_MS = 5 * 60_000;

/** Logs a summary every `intervalMs` until stopped (the timer never keeps the process alive). */
export function startSummary(figures: () => SummaryFigures, log: ModuleLogger, intervalMs = SUMMARY_EVERY_MS): Summary {
  let last: SummaryFigures = { runs: 0, steps: 0, loops: [] };
  const timer = setInterval(() => {
    const now = figures();
    log.info(summaryFacts(last, now, intervalMs), `summary of the last ${minutes(intervalMs)}`);
    last = now;
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

const minutes = (ms: number) => (ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`);

/** A counter's growth; a counter that started again (a loop reopened) counts from 0. */
const grew = (before: number | undefined, after: number) => (before !== undefined && after >= before ? after - before : after);

/** What the summary line says, as log facts: the growth from `before` to `now`. */
export function summaryFacts(before: SummaryFigures, now: SummaryFigures, intervalMs: number): Record<string, number | string> {
  const facts: Record<string, number | string> = { window_s: Math.round(intervalMs / 1000), runs: grew(before.runs, now.runs), steps: grew(before.steps, now.steps) };
  if (now.loops.length > 0) {
    // Slowest against the rate it should keep: a resting loop's 10 Hz is not behind a 49 Hz one.
    const kept = (l: LoopFigures) => l.hz / loopTargetHz(l);
    const slowest = now.loops.reduce((a, b) => (kept(b) < kept(a) ? b : a));
    const earlier = (robot: string) => before.loops.find((l) => l.robot === robot);
    facts['loop_hz'] = slowest.hz;
    if (slowest.restingMs !== undefined) facts['loop_resting_ms'] = slowest.restingMs;
    if (now.loops.length > 1) facts['slowest'] = slowest.robot;
    facts['missed'] = now.loops.reduce((sum, l) => sum + grew(earlier(l.robot)?.missed, l.missed), 0);
    facts['overruns'] = now.loops.reduce((sum, l) => sum + grew(earlier(l.robot)?.overruns, l.overruns), 0);
  }
  if (now.dropped !== undefined) facts['dropped'] = grew(before.dropped, now.dropped);
  return facts;
}

/** The figures counted off the runtime's event bus; `stop()` stops listening. */
export function busFigures(events: EventBus): { readonly figures: () => SummaryFigures; stop(): void } {
  let runs = 0;
  let steps = 0;
  const loops = new Map<string, LoopFigures>();
  const off = [
    events.on('run:end', () => (runs += 1)),
    events.on('run:step', (e) => {
      if (e.step !== undefined) steps += 1;
    }),
    events.on('control:stats', ({ robot, stats }) => {
      if (stats.state === 'closed') loops.delete(robot);
      else loops.set(robot, { robot, hz: stats.hz, periodMs: stats.periodMs, ...(stats.restingMs !== undefined ? { restingMs: stats.restingMs } : {}), missed: stats.missed, overruns: stats.overruns });
    }),
  ];
  return { figures: () => ({ runs, steps, loops: [...loops.values()] }), stop: () => off.forEach((f) => f()) };
}

/** The summary line as one of `quackd serve`'s doors; `dropped` counts what another door dropped (MQTT). */
export function summaryDoor(log: ModuleLogger, dropped?: () => number | undefined, intervalMs = SUMMARY_EVERY_MS): FrontDoor {
  let running: { stop(): void }[] = [];
  return {
    name: 'summary',
    start(api) {
      const bus = busFigures(api.events);
      const figures = (): SummaryFigures => {
        const d = dropped?.();
        return { ...bus.figures(), ...(d !== undefined ? { dropped: d } : {}) };
      };
      running = [bus, startSummary(figures, log, intervalMs)];
      return Promise.resolve();
    },
    stop() {
      for (const r of running.splice(0)) r.stop();
      return Promise.resolve();
    },
  };
}
