/**
 * The loop's health, counted in the worker and published (never asked for): the handle emits
 * each snapshot as `control:stats` on the runtime's event bus. Lateness and work time go into
 * fixed histograms (10 µs bins), so percentiles since start cost no allocation per tick.
 */

export type LoopState = 'starting' | 'holding' | 'running' | 'fallen' | 'closed';
export type LoopMode = 'realtime' | 'lockstep';

export interface Spread {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export interface ControlStats {
  readonly state: LoopState;
  /** what the worker thread runs under: `SCHED_FIFO 10`, or `normal (why)` */
  readonly scheduling: string;
  readonly mode: LoopMode;
  readonly periodMs: number;
  /** ticks run since start */
  readonly ticks: number;
  /** ticks per second of the loop's clock since the previous snapshot (virtual in lock-step) */
  readonly hz: number;
  /**
   * The loop rested since the previous snapshot, ms between its resting ticks: it held with
   * nothing to run, on servos that hold by themselves (src/control/pacing.ts), and `hz` counts
   * those ticks too. Absent: the loop kept its full rate.
   */
  readonly restingMs?: number;
  /** slots skipped because the loop was late by more than a period */
  readonly missed: number;
  /** ticks that ended after the next slot was due; targets computed past it were not sent */
  readonly overruns: number;
  /** reads that failed or gave an unusable frame: no skill ran, the targets were held */
  readonly readFailures: number;
  /** target vectors the safety stage refused (non-finite, wrong length): the targets were held */
  readonly refusals: number;
  /** ticks on which at least one target was clamped to its joint's limits */
  readonly clamped: number;
  /** ticks on which at least one target was cut to one period's travel */
  readonly stepLimited: number;
  /** send, advance or limp calls that threw */
  readonly plantErrors: number;
  /** how late each tick started against its slot, ms (0 in lock-step) */
  readonly lateMs: Spread;
  /** how long each tick's work took (read, skill, send, advance), ms */
  readonly workMs: Spread;
}

const BIN_MS = 0.01;

class Histogram {
  private readonly bins = new Uint32Array(10_000);
  private count = 0;
  private max = 0;

  add(ms: number): void {
    const v = Math.max(0, ms);
    const bin = Math.min(this.bins.length - 1, Math.floor(v / BIN_MS));
    this.bins[bin] = (this.bins[bin] ?? 0) + 1;
    this.count += 1;
    if (v > this.max) this.max = v;
  }

  spread(): Spread {
    return { p50: this.percentile(0.5), p99: this.percentile(0.99), max: round(this.max) };
  }

  private percentile(q: number): number {
    if (this.count === 0) return 0;
    const rank = Math.ceil(q * this.count);
    let seen = 0;
    for (let i = 0; i < this.bins.length; i += 1) {
      seen += this.bins[i] ?? 0;
      if (seen >= rank) return round(Math.min(this.max, (i + 1) * BIN_MS));
    }
    return round(this.max);
  }
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

export type Counter = 'missed' | 'overruns' | 'readFailures' | 'refusals' | 'clamped' | 'stepLimited' | 'plantErrors';

export class StatsCounter {
  private readonly counts: Record<Counter | 'ticks', number> = { ticks: 0, missed: 0, overruns: 0, readFailures: 0, refusals: 0, clamped: 0, stepLimited: 0, plantErrors: 0 };
  private readonly late = new Histogram();
  private readonly work = new Histogram();
  private windowTicks = 0;
  private windowRestMs: number | undefined;
  private windowStart: number;

  constructor(
    private readonly mode: LoopMode,
    private readonly periodMs: number,
    nowMs: number,
  ) {
    this.windowStart = nowMs;
  }

  tick(lateMs: number, workMs: number): void {
    this.counts.ticks += 1;
    this.windowTicks += 1;
    this.late.add(lateMs);
    this.work.add(workMs);
  }

  count(what: Counter, n = 1): void {
    this.counts[what] += n;
  }

  /** The next tick comes `ms` after this one: the loop rests (src/control/pacing.ts). */
  rested(ms: number): void {
    this.windowRestMs = ms;
  }

  /** A snapshot; starts the next rate window. */
  snapshot(state: LoopState, nowMs: number): Omit<ControlStats, 'scheduling'> {
    const restingMs = this.windowRestMs;
    this.windowRestMs = undefined;
    const span = nowMs - this.windowStart;
    const hz = span > 0 ? Math.round((this.windowTicks / span) * 1000 * 100) / 100 : 0;
    this.windowTicks = 0;
    this.windowStart = nowMs;
    return { state, mode: this.mode, periodMs: this.periodMs, ...(restingMs !== undefined ? { restingMs } : {}), ...this.counts, hz, lateMs: this.late.spread(), workMs: this.work.spread() };
  }
}
