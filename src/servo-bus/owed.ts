/**
 * Replies a servo still owes the bus: an attempt that timed out (its answers may only be late: a
 * loaded host's tty path, a slow adapter) or a retry whose answer was taken from the attempt
 * before it. A status that settles one of these is a late answer to a question already given up
 * on: it is counted, never handed to a later instruction as its answer. Feetech and Dynamixel
 * status packets carry no sequence number, so a reply is matched by its servo and its data's
 * length (the bus asks a retry's read one byte longer, so the two attempts' answers differ), and
 * by the wire's order: a half-duplex bus answers instructions in turn, so once an answer to a
 * later instruction has come, nothing owed before it is still on its way (void()).
 */

/** An answer still to come, to an attempt given up on at `deadline` (performance.now() ms). */
export interface OwedReply {
  readonly id: number;
  /** The data's length expected, or undefined when any length answers (ping, write). */
  readonly length: number | undefined;
  readonly deadline: number;
  /** The transaction that asked: its own later attempt may take the answer. */
  readonly transaction: number;
}

/** How long after its deadline an answer is still waited for: later than this it is taken for a new one. */
const OWED_MS = 1000;

export class OwedReplies {
  private list: OwedReply[] = [];

  owe(reply: OwedReply): void {
    this.list.push(reply);
  }

  /** The oldest reply owed by servo `id` with `length` bytes of data, taken off the list; undefined if none. */
  settle(id: number, length: number, now: number): OwedReply | undefined {
    this.list = this.list.filter((o) => now - o.deadline <= OWED_MS);
    const at = this.list.findIndex((o) => o.id === id && (o.length === undefined || o.length === length));
    if (at < 0) return undefined;
    const [owed] = this.list.splice(at, 1);
    return owed;
  }

  /** An answer to a later instruction came: whatever was owed before it came already or never will. */
  void(): void {
    this.list = [];
  }

  get size(): number {
    return this.list.length;
  }
}
