/**
 * A bus cycle none of whose servos answered (after its retry) says nothing yet about the servos: a
 * loaded host's tty path was starved and read their answers after the bus gave up on them (a twin
 * patrol at load 11–15 ended with all 14 servos "did not answer", which read back fine a moment
 * later). Its answers are listened for a while longer, asking nothing (ServoBus keeps a late
 * answer from answering anything else): if every one comes, the cycle was late, the loop had no
 * reading meanwhile, and the next cycle reads afresh; a second such cycle in a row is a fault,
 * said as late; one that does not come is a servo that did not answer. A cycle that some servos
 * answered names the silent ones at once, as before (the wire keeps order: their answers are not
 * on their way), and an answer that comes after all turns "did not answer" into how late it was.
 */
import type { ServoBus } from '../../../servo-bus/bus.js';
import type { ServoTimeoutError } from '../../../servo-bus/errors.js';
import type { LateTally } from './late-tally.js';

/**
 * How long a cycle that heard nothing is listened for: the silence allowed once more, and at
 * least 150 ms, for the host that read the answers late is still busy and notices them late too.
 * In the twin, answers released 4 ms after the bus gave up (10 ms and a retry) were heard 5–12 ms
 * after it beside a load of 5 on two cores. Beside six busy processes a cycle of the walk's own
 * (none held back) was heard 62 ms after it, the worker polling on time meanwhile (the pty's path
 * starved), and 40 ms of listening had called all 14 servos silent and cut torque mid-walk: once
 * in 12 and once in 19 runs of twin-late's first test, and once in a clean-clone CI run beside
 * four. A cycle that nothing answers ends in a fault either way, so the longer wait costs only a
 * bus truly gone being said 0.1 s later; answers that come keep the duck walking.
 */
export const lateGraceMs = (timeoutMs: number): number => Math.max(timeoutMs, 150);

export interface LateCyclesOptions {
  readonly bus: ServoBus;
  /** Reads the port now: between transactions only the link's idle timer does. */
  readonly poll: () => void;
  /** The silence the bus allows (bus_timeout_ms). */
  readonly timeoutMs: number;
  /** How many servos a cycle reads. */
  readonly servos: number;
  /** Servos by name: `left_knee (servo 23), …`. */
  readonly names: (ids: readonly number[]) => string;
  /** The cycle is a fault, in these words; `again` with new words as late answers come after it. */
  readonly fault: (text: string, again: boolean) => void;
  /** Every answer came, late: read the joints again now, not at the next tick (the duck is held blind until then). */
  readonly again: () => void;
  /** Where such cycles are counted, with how long after the bus gave up their last answer came. */
  readonly tally: LateTally;
}

interface Missed {
  readonly ids: readonly number[];
  /** When the bus gave up (performance.now() ms). */
  readonly at: number;
  /** Each answer heard since, ms after `at`. */
  readonly heard: Map<number, number>;
}

export class LateCycles {
  private missed: Missed | undefined;
  private timer: NodeJS.Timeout | undefined;
  private hearing: NodeJS.Timeout | undefined;
  private lateBefore = false;
  private faulted = false;
  private readonly onLate = (id: number, _ms: number, taken: boolean): void => this.heard(id, taken);

  constructor(private readonly o: LateCyclesOptions) {
    o.bus.on('late', this.onLate);
  }

  /** Waiting to learn whether a cycle's answers are only late: no cycle starts meanwhile. */
  get listening(): boolean {
    return this.timer !== undefined;
  }

  /** A cycle read every joint. */
  answered(): void {
    this.lateBefore = false;
  }

  /** A cycle's sync read timed out; `faulted`: the bus is at fault already. */
  timedOut(err: ServoTimeoutError, faulted: boolean): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.missed = { ids: err.ids, at: performance.now(), heard: new Map() };
    this.faulted = false;
    const grace = lateGraceMs(this.o.timeoutMs);
    this.hear(grace);
    if (err.answered.length === 0 && !faulted) this.timer = setTimeout(() => this.decide(), grace);
    else this.fail();
  }

  close(): void {
    clearTimeout(this.timer);
    clearInterval(this.hearing);
    this.timer = undefined;
    this.o.bus.off('late', this.onLate);
  }

  /** Reads the port every ms for `ms`, so that late answers are heard as they come. */
  private hear(ms: number): void {
    clearInterval(this.hearing);
    const until = performance.now() + ms;
    this.hearing = setInterval(() => {
      this.o.poll();
      if (performance.now() >= until) clearInterval(this.hearing);
    }, 1);
  }

  private heard(id: number, taken: boolean): void {
    const m = this.missed;
    if (taken || m === undefined || !m.ids.includes(id) || m.heard.has(id)) return;
    m.heard.set(id, performance.now() - m.at);
    if (this.faulted) this.o.fault(this.describe(m), true);
    else if (this.timer !== undefined && m.ids.every((i) => m.heard.has(i))) this.decide();
  }

  private decide(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    // What came meanwhile and is still unread is heard first: a timer runs before the port is read.
    this.o.poll();
    const m = this.missed;
    if (m === undefined || this.faulted) return;
    const all = m.ids.every((id) => m.heard.has(id));
    if (all) {
      this.o.tally.cycle(Math.max(0, ...m.heard.values()));
      // Nothing is still to come, whether the cycle is late or a fault: the next cycle's
      // transactions read the port themselves.
      clearInterval(this.hearing);
    }
    if (all && !this.lateBefore) {
      this.lateBefore = true;
      this.o.again();
    } else this.fail();
  }

  private fail(): void {
    const m = this.missed;
    if (m === undefined) return;
    this.faulted = true;
    this.o.fault(this.describe(m), false);
  }

  /** The silent servos by name; those whose answers came after the bus gave up, how late and why. */
  private describe(m: Missed): string {
    const silent = m.ids.filter((id) => !m.heard.has(id));
    const heard = m.ids.filter((id) => m.heard.has(id));
    const after = Math.max(0, ...heard.map((id) => m.heard.get(id) ?? 0));
    const said: string[] = [];
    if (silent.length > 0) said.push(`${this.o.names(silent)} did not answer`);
    if (heard.length > 0) {
      const who = heard.length === this.o.servos ? `all ${heard.length} servos` : this.o.names(heard);
      said.push(`${who} answered late: ${after < 1 ? 'under 1' : Math.round(after)} ms after the bus gave up on them (${this.o.timeoutMs} ms and a retry), the host too busy to read the bus in time`);
    }
    return said.join('; ');
  }
}
