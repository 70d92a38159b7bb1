/**
 * At most `hz` deliveries a second per key, newest wins: a robot whose status changes at the
 * control loop's rate is published a few times a second, always ending on its latest status.
 * offer() never waits; a delivery held back goes out on a timer that never keeps the process up.
 * `merge` folds an offer into the one held back (default: the newer replaces it), so what an
 * earlier offer asked for (a get's publish) is not lost to a later one.
 */
export class Coalescer<T> {
  private readonly last = new Map<string, number>();
  private readonly pending = new Map<string, T>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly gapMs: number;

  constructor(
    hz: number,
    private readonly deliver: (key: string, value: T) => void,
    private readonly merge: (held: T, next: T) => T = (_held, next) => next,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.gapMs = 1000 / hz;
  }

  offer(key: string, value: T): void {
    const wait = (this.last.get(key) ?? -Infinity) + this.gapMs - this.now();
    if (wait <= 0 && !this.timers.has(key)) {
      this.fire(key, value);
      return;
    }
    const held = this.pending.get(key);
    this.pending.set(key, held === undefined ? value : this.merge(held, value));
    if (this.timers.has(key)) return;
    const timer = setTimeout(() => {
      this.timers.delete(key);
      const newest = this.pending.get(key);
      this.pending.delete(key);
      if (newest !== undefined) this.fire(key, newest);
    }, Math.max(0, wait));
    timer.unref();
    this.timers.set(key, timer);
  }

  /** Delivers what is held back now (a reconnect republishes the newest, not the last sent). */
  flush(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    const pending = [...this.pending];
    this.pending.clear();
    for (const [key, value] of pending) this.fire(key, value);
  }

  private fire(key: string, value: T): void {
    this.last.set(key, this.now());
    this.deliver(key, value);
  }
}
