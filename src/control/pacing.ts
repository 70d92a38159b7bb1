/**
 * What paces the core's ticks.
 *
 * Real time: slot n is due at t0 + n × period on the monotonic clock. A timer does the coarse
 * wait, so that between ticks the worker's event loop takes messages and settles a skill's
 * promises; Atomics.wait does the last FINE_MS, because libuv timers count whole milliseconds
 * and fire up to one late, while a futex wakes within ~0.15 ms on a 2-core VM. Spinning instead
 * was measured worse under load: the scheduler preempts a thread that never sleeps.
 *
 * Resting: a plant whose servos hold their last goals by themselves (Plant.restingPeriodMs) is
 * ticked that often while the loop holds with nothing to run (ControlCore.restingMs): four in five
 * of a held duck's ticks read nothing new and send nothing, and their wake-ups were most of its
 * idle CPU. A verb kicks the loop back to the next slot; a tilt (or, down, an upright reading)
 * or a failed read keeps the full rate from the next tick on, so a fall or a righting is counted
 * in as many ticks, as soon, as on a loop that never rests.
 *
 * Lock-step: a virtual clock, one period per tick, ticks back to back while a verb runs (each
 * advances a simulated plant by one period, so physics runs as fast as it computes) and none
 * between verbs, so a simulated world waits while the pilot thinks and tests are deterministic.
 */
import type { ControlCore, TickTiming } from './core.js';
import { STOP, TICKS } from './protocol.js';
import { nextSlot } from './schedule.js';

const FINE_MS = 2;

export interface Driver {
  start(): void;
  /** A verb began: a lock-step loop that idles starts ticking again. */
  kick(): void;
  /** No tick starts after this; resolves once a tick in flight has finished. */
  stop(): Promise<void>;
}

export interface PacingDeps {
  readonly core: ControlCore;
  readonly periodMs: number;
  readonly shared: BigInt64Array;
  readonly statsEveryMs: number;
  publish(): void;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread until `t` (performance.now() ms); nothing ever notifies `sleeper`. */
function sleepUntil(t: number): void {
  for (let left = t - performance.now(); left > 0; left = t - performance.now()) Atomics.wait(sleeper, 0, 0, left);
}

const startTick = (shared: BigInt64Array): number => Number(Atomics.add(shared, TICKS, 1n));

export const stopCounter = (shared: BigInt64Array) => (): bigint => Atomics.load(shared, STOP);

abstract class BaseDriver implements Driver {
  protected running = false;
  protected inflight: Promise<void> | undefined;
  private lastPublish = 0;

  constructor(protected readonly deps: PacingDeps) {}

  abstract start(): void;
  abstract kick(): void;

  stop(): Promise<void> {
    this.running = false;
    this.cancel();
    return this.inflight ?? Promise.resolve();
  }

  protected cancel(): void {}

  /** Runs one tick; `then` after it, at once when the tick was synchronous. */
  protected run(t: TickTiming, then: () => void): void {
    const pending = this.deps.core.tick(t);
    if (pending === undefined) return then();
    this.inflight = pending.then(() => {
      this.inflight = undefined;
      then();
    });
  }

  protected maybePublish(now: number): void {
    if (now - this.lastPublish < this.deps.statsEveryMs) return;
    this.lastPublish = now;
    this.deps.publish();
  }

  protected startPublishing(now: number): void {
    this.lastPublish = now;
  }
}

export class RealtimeDriver extends BaseDriver {
  private t0 = 0;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  /** the slot the next tick is armed for */
  private armed = 0;

  start(): void {
    this.running = true;
    this.t0 = performance.now();
    this.startPublishing(this.t0);
    this.arm(0);
  }

  /** A verb began: a loop resting until a later slot ticks at the next one instead. */
  kick(): void {
    if (!this.running || this.inflight !== undefined) return;
    const next = Math.floor((performance.now() - this.t0) / this.deps.periodMs) + 1;
    if (this.armed <= next) return;
    this.cancel();
    this.arm(next);
  }

  protected override cancel(): void {
    clearTimeout(this.timer);
    clearImmediate(this.immediate);
  }

  private arm(slot: number): void {
    this.armed = slot;
    const due = this.t0 + slot * this.deps.periodMs;
    const coarse = due - performance.now() - FINE_MS;
    if (coarse >= 1) this.timer = setTimeout(() => this.fire(slot, due), coarse);
    else this.immediate = setImmediate(() => this.fire(slot, due));
  }

  private fire(slot: number, due: number): void {
    if (!this.running) return;
    sleepUntil(due);
    const index = startTick(this.deps.shared);
    const t = { index, slot, lateMs: performance.now() - due, deadlineMs: due + this.deps.periodMs };
    this.run(t, () => this.after(slot));
  }

  private after(slot: number): void {
    if (!this.running) return;
    const now = performance.now();
    // Resting, the slots between are passed over on purpose: not missed, not counted.
    const rest = this.deps.core.restingMs;
    const stride = rest !== undefined ? Math.max(1, Math.round(rest / this.deps.periodMs)) : 1;
    if (stride > 1) this.deps.core.stats.rested(stride * this.deps.periodMs);
    const next = nextSlot(this.t0, this.deps.periodMs, slot + stride - 1, now);
    if (next.missed > 0) this.deps.core.stats.count('missed', next.missed);
    this.maybePublish(now);
    this.arm(next.slot);
  }
}

export class VirtualClock {
  ms = 0;
  readonly now = (): number => this.ms;
}

export class LockstepDriver extends BaseDriver {
  private slot = 0;
  private busy = false;
  private immediate: NodeJS.Immediate | undefined;

  constructor(
    deps: PacingDeps,
    private readonly clock: VirtualClock,
  ) {
    super(deps);
  }

  /** One tick to take the hold pose, then idle until a verb. */
  start(): void {
    this.running = true;
    this.startPublishing(this.clock.ms);
    this.busy = true;
    this.step();
  }

  kick(): void {
    if (this.busy || !this.running || !this.deps.core.active) return;
    this.busy = true;
    this.step();
  }

  protected override cancel(): void {
    clearImmediate(this.immediate);
    this.busy = false;
  }

  private step(): void {
    if (!this.running) return;
    const slot = this.slot;
    this.clock.ms = slot * this.deps.periodMs;
    this.slot += 1;
    this.run({ index: startTick(this.deps.shared), slot, lateMs: 0 }, () => {
      this.maybePublish(this.clock.ms + this.deps.periodMs);
      // Yield between ticks so that messages (run, close) are taken even in a long verb.
      if (this.running && this.deps.core.active) this.immediate = setImmediate(() => this.step());
      else this.busy = false;
    });
  }
}
