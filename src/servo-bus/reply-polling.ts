/**
 * When a polled link (the control worker's tty, which the bus reads itself) is read while a
 * transaction waits for its replies: the bus decides what it waits for and until when; this says
 * only when to look at the port, which is a matter of timers, futex waits and CPU, not of servos.
 */

/** A polled link is read this often while a transaction waits past its replies' wire time. */
const POLL_MS = 1;
/**
 * A polled link is read when the replies are due, not on a 1 ms interval: libuv timers count
 * whole milliseconds and fire up to one late, which on a 2 ms tick was most of the time over the
 * wire. A timer sleeps until up to FINE_MS before the last reply's byte is due, one futex wait
 * (pacing.ts's way: it wakes within ~0.1 ms) to the due time, then the link is read between
 * SLICE_MS waits for up to LATE_MS more (a pty's relay and the far end's wake-up take 0.4–1 ms on
 * a loaded 2-core machine); a reply later than that is waited for on the interval, the thread free
 * for its messages, as before. Each read that finds nothing costs ~40 µs of CPU (EAGAIN is thrown)
 * and each wait as much: aiming later (a learnt lag, 0.1 ms slices) saved ~25 % of the bus's CPU
 * a tick and cost 0.3–0.5 ms a tick, so the tick's time won; a held duck's loop reads the bus less
 * often instead (control-plant.ts).
 */
const FINE_MS = 1;
const LATE_MS = 1.5;
const SLICE_MS = 0.05;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

export interface ReplyPolling {
  /**
   * The replies are wanted by the next tick, not at once (the control plant reads where the joints
   * went for the tick after): read them on timers alone (a read or two a reply), not in futex
   * slices from the moment they are due, which a held duck paid in CPU every tick.
   */
  readonly patient: boolean;
  /** The transaction still waits: reading stops as soon as it does not. */
  readonly waiting: () => boolean;
}

/** One attempt's reading of the link: made before the packet goes out, started once it is, stopped when the attempt ends. */
export class ReplyPoller {
  private timer: NodeJS.Timeout | undefined;

  /** Reads the link with `pull` from `due` (performance.now() ms, when the last reply's byte is through) until the attempt stops waiting. */
  start(pull: () => void, due: number, { patient, waiting }: ReplyPolling): void {
    if (patient) {
      this.timer = setTimeout(() => {
        pull();
        if (waiting()) this.timer = setInterval(pull, POLL_MS);
      }, due - performance.now());
      return;
    }
    const fine = (): void => {
      for (let left = due - performance.now(); left > 0; left = due - performance.now()) Atomics.wait(sleeper, 0, 0, left);
      const until = due + LATE_MS;
      for (pull(); waiting() && performance.now() < until; pull()) Atomics.wait(sleeper, 0, 0, SLICE_MS);
      if (waiting()) this.timer = setInterval(pull, POLL_MS);
    };
    const coarse = due - performance.now() - FINE_MS;
    if (coarse >= 1) this.timer = setTimeout(fine, coarse);
    else
      setImmediate(() => {
        if (waiting()) fine();
      });
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
