/**
 * The near end of a servo bus: transactions over any Duplex stream (a serial port, a socat pty,
 * a PassThrough pair in a test), one at a time as a half-duplex bus needs. Each waits for the
 * replies it asked for until its deadline (the silence allowed plus the bytes' own wire time at
 * the bus's baud), is retried when a servo stays silent or its reply comes back garbled, and
 * fails naming the servos that did not answer. A reply's alarm bits (overload, overheat,
 * voltage…) come back as words with its data: what to do about them is the body's call. A
 * refusal (Dynamixel's data range, access…) fails the call. Stale bytes are dropped before each
 * instruction, and an answer that comes after its attempt gave up (a loaded host reads the port
 * late) is owed.ts's: a retry of the same question may take it, nothing later does; it is told
 * ('late', with how late) so a caller can say the bus answered late rather than not at all.
 *
 * A body reads all its joints with one syncRead and writes all its targets with one syncWrite a
 * tick. The stream can be swapped (attach/detach) when a port comes back, as the bridge's client;
 * any serial edge that takes a LinkUser opens it (serial.ts on the main thread, tty.ts in the
 * control worker, whose reads the bus polls while it waits):
 *
 *   const bus = new ServoBus({ protocol: feetech, timeoutMs: 5, retries: 0 });
 *   const link = await TtyLink.open(bus, { path, baud: 1_000_000 });
 *   const r = modelByName('STS3215')!.registers;
 *   const joints = await bus.syncRead(ids, r.presentPosition.address, 4);   // position + speed
 *   await bus.syncWrite(r.goalPosition.address, new Map(ids.map((id, i) => [id, encodeRegister(r.goalPosition, goals[i]!)])));
 */
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { listenTo } from '../bridge/link-user.js';
import { BusLostError, ServoGarbledError, ServoRefusedError, ServoTimeoutError } from './errors.js';
import { OwedReplies } from './owed.js';
import { BROADCAST_ID, MAX_SERVO_ID, type DecoderCounters, type PacketDecoder, type RawPacket, type StatusPacket } from './packet.js';
import type { InstructionName, ServoProtocol } from './protocol.js';
import { ReplyPoller } from './reply-polling.js';

export interface ServoBusOptions {
  readonly protocol: ServoProtocol;
  /** Silence allowed after the reply's own wire time before a servo is called silent (default 10 ms). */
  readonly timeoutMs?: number;
  /** Tries after the first when a servo is silent or its reply garbled (default 1). */
  readonly retries?: number;
  /** The line's rate, for wire times (default 1 Mbaud, the Open Duck Mini's and the XL330 ducks'). */
  readonly baud?: number;
  /** A polled link's replies are wanted by the next tick, not at once: read on timers alone (reply-polling.ts). */
  readonly patient?: boolean;
}

export interface CallOptions {
  readonly timeoutMs?: number;
  readonly retries?: number;
}

export interface ServoReply {
  readonly id: number;
  /** The error byte as the servo sent it. */
  readonly error: number;
  /** The error byte's alarm bits in words: [] when all is well. */
  readonly alarms: readonly string[];
  readonly data: Uint8Array;
}

export interface BusCounters extends DecoderCounters {
  /** Transactions that ended with a servo silent, after their retries. */
  timeouts: number;
  /** Transactions that ended with a garbled reply, after their retries. */
  garbled: number;
  /** Attempts made again. */
  retries: number;
  /** Well-formed replies nobody was waiting for (a late one, another id). */
  unexpected: number;
  /** Attempts that met a damaged reply (bad checksum, noise, cut short), retried or not: the line's health. */
  damaged: number;
  /** Answers that came after their attempt gave up: taken by its retry, or after the transaction failed. */
  late: number;
}

export interface ServoBusEvents {
  attached: [];
  detached: [reason: Error];
  /** A servo's status that no transaction was waiting for: most often an answer that came after its deadline. */
  stray: [id: number];
  /**
   * Servo `id`'s answer came `ms` after the deadline of the attempt that asked: `taken` when a
   * retry of the same question took it as its answer, otherwise it answers nothing (a stray too).
   */
  late: [id: number, ms: number, taken: boolean];
}

export const DEFAULT_BUS_TIMEOUT_MS = 10;
export const DEFAULT_BUS_BAUD = 1_000_000;
/**
 * Timers run before the event loop reads its file descriptors, so an answer that came in time may
 * still sit unread when the deadline fires, the more so when this process was not scheduled for a
 * while (a loaded machine). Before a servo is called silent the loop gets a few more turns to read
 * it: IO_GRACE_MS, or up to 50 ms when the timer itself fired STALL_LATE_MS late (the loop stalled).
 */
const IO_GRACE_MS = 3;
const STALL_LATE_MS = 25;

/** Wire time of `bytes` at `baud`, 8N1 (ten bits a byte), in ms. */
export const wireMs = (bytes: number, baud: number): number => (bytes * 10 * 1000) / baud;

interface Waiting {
  readonly ids: readonly number[];
  readonly replies: Map<number, ServoReply>;
  readonly echo: RawPacket | undefined;
  readonly transaction: number;
  /** The data's length this attempt asked (a read's), or undefined when any length answers. */
  readonly length: number | undefined;
  /** The length the caller asked: a retry's longer reply is cut back to it. */
  readonly base: number | undefined;
  /** Servos answered by an earlier attempt's late reply: this attempt's own is still to come. */
  readonly early: Set<number>;
  damaged: boolean;
  done(): void;
}

/** What an attempt expects back. */
interface Asked {
  readonly transaction: number;
  readonly length: number | undefined;
  readonly base: number | undefined;
}

export class ServoBus extends EventEmitter<ServoBusEvents> {
  readonly protocol: ServoProtocol;
  readonly baud: number;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly patient: boolean;
  private readonly decoder: PacketDecoder;
  private readonly extra = { timeouts: 0, garbled: 0, retries: 0, unexpected: 0, damaged: 0, late: 0 };
  private readonly owed = new OwedReplies();
  private transactions = 0;
  private stream: Duplex | undefined;
  private pull: (() => void) | undefined;
  private waiting: Waiting | undefined;
  private abort: ((reason: Error) => void) | undefined;
  /** Transactions run one after another: the tail of the queue. */
  private queue: Promise<unknown> = Promise.resolve();
  private unlisten: (() => void) | undefined;
  /** When the last byte sent or asked for is through (performance.now() ms): a polled link is read then. */
  private wireFreeAt = 0;

  constructor(options: ServoBusOptions) {
    super();
    this.protocol = options.protocol;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_BUS_TIMEOUT_MS;
    this.retries = options.retries ?? 1;
    this.baud = options.baud ?? DEFAULT_BUS_BAUD;
    this.patient = options.patient ?? false;
    this.decoder = options.protocol.decoder();
  }

  get attached(): boolean {
    return this.stream !== undefined;
  }

  /** Talk over `stream`; the bus never closes it. A link read on its owner's schedule passes `pull` and hands what it reads to feed(). */
  attach(stream: Duplex, pull?: () => void): void {
    if (this.stream !== undefined) this.detach(new BusLostError('the bus link was replaced'));
    this.stream = stream;
    this.pull = pull;
    this.decoder.reset();
    this.unlisten = listenTo(stream, {
      data: (chunk) => this.receive(chunk),
      close: () => this.detach(new BusLostError('the bus link closed')),
      error: (err) => this.detach(new BusLostError(`the bus link failed: ${err.message}`)),
    });
    this.emit('attached');
  }

  /** Stop using the stream; a waiting transaction fails with `reason`. Idempotent. */
  detach(reason: Error = new BusLostError('the bus link was detached')): void {
    const stream = this.stream;
    if (stream === undefined) return;
    this.stream = undefined;
    this.pull = undefined;
    this.unlisten?.();
    this.unlisten = undefined;
    this.owed.void();
    this.abort?.(reason instanceof BusLostError ? reason : new BusLostError(reason.message));
    this.emit('detached', reason);
  }

  /** Bytes a polled link read from the bus. */
  feed(chunk: Uint8Array): void {
    if (this.stream !== undefined) this.receive(chunk);
  }

  /** Is servo `id` there? Dynamixel's reply carries model number (2 bytes, LE) and firmware; Feetech's carries nothing. */
  async ping(id: number, options?: CallOptions): Promise<ServoReply> {
    return this.one('ping', id, () => this.protocol.ping(id), 0, false, options);
  }

  async read(id: number, address: number, length: number, options?: CallOptions): Promise<ServoReply> {
    return this.one('read', id, (longer) => this.protocol.read(id, address, length + longer), length, true, options);
  }

  /** Write and wait for the servo's acknowledgement; to the broadcast id (or with `reply: false`) nothing is awaited. */
  async write(id: number, address: number, data: ArrayLike<number>, options: CallOptions & { readonly reply?: boolean } = {}): Promise<ServoReply | undefined> {
    const packet = this.protocol.write(id, address, data);
    if (id === BROADCAST_ID || options.reply === false) return this.send(packet);
    return this.one('write', id, () => packet, 0, false, options);
  }

  /** `length` bytes at `address` from every servo in `ids`, in one instruction; replies in the order asked. */
  async syncRead(ids: readonly number[], address: number, length: number, options?: CallOptions): Promise<ServoReply[]> {
    checkIds(ids);
    const replies = await this.transact('sync read', ids, (longer) => this.protocol.syncRead(ids, address, length + longer), length, true, options);
    return ids.map((id) => replies.get(id)).filter((r): r is ServoReply => r !== undefined);
  }

  /** Each servo's own bytes at `address`, in one instruction that nothing answers. Every entry must be the same length. */
  async syncWrite(address: number, entries: ReadonlyMap<number, ArrayLike<number>> | Readonly<Record<number, ArrayLike<number>>>): Promise<undefined> {
    const list = entries instanceof Map ? [...(entries as ReadonlyMap<number, ArrayLike<number>>)] : Object.entries(entries).map(([id, d]) => [Number(id), d] as const);
    if (list.length === 0) throw new RangeError('a sync write needs at least one servo');
    checkIds(list.map(([id]) => id));
    const length = list[0]?.[1].length ?? 0;
    return this.send(this.protocol.syncWrite(address, length, list));
  }

  counters(): BusCounters {
    return { ...this.decoder.counters, ...this.extra };
  }

  /** Detach and drop listeners. Idempotent. */
  close(): void {
    this.detach(new BusLostError('the bus was closed'));
    this.removeAllListeners();
  }

  private async one(instruction: InstructionName, id: number, ask: (longer: number) => Uint8Array, length: number, read: boolean, options?: CallOptions): Promise<ServoReply> {
    checkIds([id]);
    const replies = await this.transact(instruction, [id], ask, length, read, options);
    const reply = replies.get(id);
    if (reply === undefined) throw new ServoTimeoutError([id], instruction, options?.timeoutMs ?? this.timeoutMs);
    return reply;
  }

  /** A packet that nothing answers, in its turn on the bus. */
  private send(packet: Uint8Array): Promise<undefined> {
    return this.enqueue(async () => {
      const stream = this.stream;
      if (stream === undefined) throw new BusLostError('cannot send: the bus link is down');
      this.decoder.counters.skipped += this.decoder.reset();
      stream.write(packet);
      this.onWire(wireMs(packet.length, this.baud));
      return undefined;
    });
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * `ask(longer)` frames the instruction. A read's retry asks `longer` bytes more than the caller
   * wanted (reading never changes a servo), so its answers are told from the late answers to the
   * attempt before it by their length, and cut back; a ping or a write is asked the same again.
   */
  private transact(instruction: InstructionName, ids: readonly number[], ask: (longer: number) => Uint8Array, length: number, read: boolean, options?: CallOptions): Promise<Map<number, ServoReply>> {
    const silence = options?.timeoutMs ?? this.timeoutMs;
    const tries = 1 + (options?.retries ?? this.retries);
    const transaction = ++this.transactions;
    return this.enqueue(async () => {
      for (let attempt = 1; ; attempt++) {
        const longer = read ? attempt - 1 : 0;
        const packet = ask(longer);
        const budget = silence + wireMs(packet.length + ids.length * this.protocol.statusBytes(length + longer), this.baud);
        const asked: Asked = { transaction, length: read ? length + longer : undefined, base: read ? length : undefined };
        const replies = await this.attempt(instruction, ids, packet, budget, silence, asked).catch((err: unknown) => {
          if (attempt < tries && (err instanceof ServoTimeoutError || err instanceof ServoGarbledError)) return undefined;
          if (err instanceof ServoTimeoutError) this.extra.timeouts++;
          if (err instanceof ServoGarbledError) this.extra.garbled++;
          throw err;
        });
        if (replies === undefined) {
          this.extra.retries++;
          continue;
        }
        for (const r of replies.values()) {
          const refused = this.protocol.refusal(r.error);
          if (refused !== undefined) throw new ServoRefusedError(r.id, instruction, refused);
        }
        return replies;
      }
    });
  }

  /** `budgetMs`: the whole wait (silence plus wire time); `silenceMs` is what the error says, as the caller set it. */
  private attempt(instruction: InstructionName, ids: readonly number[], packet: Uint8Array, budgetMs: number, silenceMs: number, asked: Asked): Promise<Map<number, ServoReply>> {
    const stream = this.stream;
    if (stream === undefined) return Promise.reject(new BusLostError(`cannot send ${instruction}: the bus link is down`));
    this.decoder.counters.skipped += this.decoder.reset();
    return new Promise((resolve, reject) => {
      const replies = new Map<number, ServoReply>();
      const deadline = performance.now() + budgetMs;
      let timer: NodeJS.Timeout | undefined;
      const poller = new ReplyPoller();
      const finish = (err?: Error): void => {
        clearTimeout(timer);
        poller.stop();
        if (waiting.damaged) this.extra.damaged++;
        this.waiting = undefined;
        this.abort = undefined;
        // What this attempt asked and has not had yet is owed; a lost link owes nothing, and a
        // garbled answer came (damaged) and will not come again.
        if (!(err instanceof BusLostError) && !(err instanceof ServoGarbledError)) for (const id of ids) if (!replies.has(id) || waiting.early.has(id)) this.owed.owe({ id, length: asked.length, deadline, transaction: asked.transaction });
        if (err !== undefined) reject(err);
        else resolve(replies);
      };
      const waiting: Waiting = {
        ids,
        replies,
        echo: this.protocol.decoder().push(packet)[0],
        transaction: asked.transaction,
        length: asked.length,
        base: asked.base,
        early: new Set(),
        damaged: false,
        done: () => finish(),
      };
      const expire = (graced: boolean): void => {
        this.pull?.();
        if (this.waiting !== waiting) return;
        if (!graced) {
          const stalled = performance.now() - deadline > STALL_LATE_MS;
          timer = setTimeout(() => expire(true), stalled ? Math.min(50, budgetMs) : IO_GRACE_MS);
          return;
        }
        const silent = ids.filter((id) => !replies.has(id));
        const answered = ids.filter((id) => replies.has(id));
        // Half a packet still waiting at the deadline is a reply cut short, not silence.
        if (this.decoder.pending > 0) waiting.damaged = true;
        finish(waiting.damaged ? new ServoGarbledError(silent, instruction, answered) : new ServoTimeoutError(silent, instruction, silenceMs, answered));
      };
      this.waiting = waiting;
      this.abort = (reason) => finish(reason);
      timer = setTimeout(() => expire(false), budgetMs);
      stream.write(packet);
      const pull = this.pull;
      if (pull === undefined) return;
      // When the last reply's byte is due: after what is still on the wire (a sync write just sent), this packet and the replies.
      const due = this.onWire(budgetMs - silenceMs);
      poller.start(pull, due, { patient: this.patient, waiting: () => this.waiting === waiting });
    });
  }

  /** `ms` more on the one wire, after what is on it now; when the wire is free again (performance.now() ms). */
  private onWire(ms: number): number {
    this.wireFreeAt = Math.max(performance.now(), this.wireFreeAt) + ms;
    return this.wireFreeAt;
  }

  private receive(chunk: Uint8Array): void {
    const before = this.decoder.counters.checksum + this.decoder.counters.skipped;
    const packets = this.decoder.push(chunk);
    const w = this.waiting;
    if (w !== undefined && this.decoder.counters.checksum + this.decoder.counters.skipped > before) w.damaged = true;
    for (const p of packets) {
      if (w !== undefined && isEcho(p, w.echo)) continue;
      const status = this.protocol.asStatus(p);
      if (status === undefined) continue; // an instruction on the wire (an adapter that echoes): not for us
      const wanted = w !== undefined && w.ids.includes(status.id) && !w.replies.has(status.id);
      const owed = this.owed.settle(status.id, status.data.length, performance.now());
      if (owed !== undefined) {
        // A late answer: only a retry of the question it answers may take it.
        const taken = wanted && owed.transaction === w.transaction;
        this.extra.late++;
        this.emit('late', status.id, performance.now() - owed.deadline, taken);
        if (taken) this.take(w, status, true);
        else this.emit('stray', status.id);
        continue;
      }
      if (!wanted || (w.length !== undefined && status.data.length !== w.length)) {
        this.extra.unexpected++;
        this.emit('stray', status.id);
        continue;
      }
      // An answer to this instruction: the wire keeps order, so nothing owed before it is still coming.
      this.owed.void();
      this.take(w, status, false);
    }
  }

  private take(w: Waiting, status: StatusPacket, early: boolean): void {
    const data = w.base !== undefined ? status.data.subarray(0, w.base) : status.data;
    w.replies.set(status.id, { id: status.id, error: status.error, alarms: this.protocol.alarms(status.error), data });
    if (early) w.early.add(status.id);
    if (w.replies.size === w.ids.length) w.done();
  }
}

function isEcho(p: RawPacket, sent: RawPacket | undefined): boolean {
  return sent !== undefined && p.id === sent.id && p.code === sent.code && p.params.length === sent.params.length && p.params.every((b, i) => b === sent.params[i]);
}

function checkIds(ids: readonly number[]): void {
  for (const id of ids) if (!Number.isInteger(id) || id < 0 || id > MAX_SERVO_ID) throw new RangeError(`servo id must be 0..${MAX_SERVO_ID}, got ${id}`);
  if (new Set(ids).size !== ids.length) throw new RangeError(`servo ids repeat: ${ids.join(', ')}`);
}
