/**
 * The near end of the bridge: JSON-RPC requests with ids and timeouts over any Duplex stream (a
 * serial port, a socat pty, a PassThrough pair in a test), or bytes a polled link reads and
 * feeds, notifications as typed events, and heartbeats on the client's own timer so the
 * firmware's watchdog sees a live host even while the caller is busy; a loop that ticks carries
 * them itself (beat), and the timer then never fires. The stream can be swapped (attach/detach)
 * when a port comes back.
 */
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { listenTo } from './link-user.js';
import { checkState } from './wire-check.js';
import { LinkLostError, RequestTimeoutError, RpcError, BridgeError } from './errors.js';
import { FrameDecoder, encodeFrame, type FrameCounters } from './frame.js';
import {
  METHODS,
  PROTOCOL_VERSION,
  encodeMessage,
  faultSchema,
  parseIncoming,
  type BridgeState,
  type Fault,
  type Hello,
  type Method,
  type MethodParams,
  type MethodResult,
} from './protocol.js';

export interface BridgeClientEvents {
  state: [state: BridgeState];
  /** The firmware's answer to a torque call: its read-back, a state period before a state says it. */
  torque: [on: boolean];
  fault: [fault: Fault];
  attached: [];
  detached: [reason: Error];
}

export interface BridgeClientOptions {
  /** Default request timeout. */
  readonly timeoutMs?: number;
  /** Heartbeat period; the firmware's watchdog is 200 ms, so 50 ms leaves three to lose. 0 = none. */
  readonly heartbeatMs?: number;
}

export interface ClientCounters extends FrameCounters {
  /** Frames with a good CRC that were not a message we understand. */
  json: number;
  /** Responses whose id matched no waiting request (late, after a timeout, or id null). */
  unmatched: number;
  timeouts: number;
}

interface Pending {
  readonly method: Method;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export const DEFAULT_TIMEOUT_MS = 500;
/**
 * A deadline timer that fires this late means quackd's own loop was stalled, not the link: the
 * timer phase runs before the poll phase reads the port, so an answer that came in time may be
 * sitting unread. It gets a little running loop (stallGraceMs) before the request is called timed out.
 */
const STALL_LATE_MS = 25;
/** Time for a few turns of a loaded loop (poll, the threadpool's read, decode): up to a quarter second, never more than the request's own timeout. */
const stallGraceMs = (timeoutMs: number): number => Math.max(50, Math.min(timeoutMs, 250));
export const DEFAULT_HEARTBEAT_MS = 50;
/** beat() sends once this share of the period has passed: at a 20 ms tick, every second tick. */
const BEAT_EARLY = 0.75;

export class BridgeClient extends EventEmitter<BridgeClientEvents> {
  private readonly timeoutMs: number;
  private heartbeatMs: number;
  private readonly decoder = new FrameDecoder();
  private readonly extra = { json: 0, unmatched: 0, timeouts: 0 };
  private readonly pending = new Map<number, Pending>();
  private stream: Duplex | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private lastBeatAt = Number.NEGATIVE_INFINITY;
  /** a polled link's read: what it holds is read before a request is judged late */
  private pull: (() => void) | undefined;
  private nextId = 1;
  private latest: { state: BridgeState; at: number } | undefined;
  private unlisten: (() => void) | undefined;

  constructor(options: BridgeClientOptions = {}) {
    super();
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  }

  get attached(): boolean {
    return this.stream !== undefined;
  }

  /**
   * Start talking over a stream. The client never closes it: whoever opened it does. A link that
   * reads on its owner's schedule passes its `pull` and hands what it reads to feed().
   */
  attach(stream: Duplex, pull?: () => void): void {
    if (this.stream !== undefined) this.detach(new LinkLostError('the link was replaced'));
    this.stream = stream;
    this.pull = pull;
    this.decoder.reset();
    this.unlisten = listenTo(stream, {
      data: (chunk) => this.receive(chunk),
      close: () => this.detach(new LinkLostError('the link closed')),
      error: (err) => this.detach(new LinkLostError(`the link failed: ${err.message}`)),
    });
    this.startHeartbeat();
    this.emit('attached');
  }

  /** Stop using the stream; every waiting request fails with `reason`. Idempotent. */
  detach(reason: Error = new LinkLostError('the link was detached')): void {
    const stream = this.stream;
    if (stream === undefined) return;
    this.stream = undefined;
    this.pull = undefined;
    this.unlisten?.();
    this.unlisten = undefined;
    this.stopHeartbeat();
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(reason);
    }
    this.emit('detached', reason);
  }

  /** Turn heartbeats on or off (a test stops them to watch the watchdog fire). */
  setHeartbeat(periodMs: number): void {
    this.heartbeatMs = periodMs;
    this.stopHeartbeat();
    if (this.stream !== undefined) this.startHeartbeat();
  }

  request<M extends Method>(method: M, params: MethodParams<M>, timeoutMs = this.timeoutMs): Promise<MethodResult<M>> {
    const stream = this.stream;
    if (stream === undefined) return Promise.reject(new LinkLostError(`cannot send ${method}: the link is down`));
    const id = this.takeId();
    let frame: Uint8Array;
    try {
      // Before a timer exists: a payload too big to frame must not leave one behind.
      frame = encodeFrame(encodeMessage(method, params, id));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return new Promise<MethodResult<M>>((resolve, reject) => {
      const deadline = performance.now() + timeoutMs;
      const expire = (graced: boolean): void => {
        this.pull?.();
        const waiting = this.pending.get(id);
        if (waiting === undefined) return;
        if (!graced && performance.now() - deadline > STALL_LATE_MS) {
          waiting.timer = setTimeout(() => expire(true), stallGraceMs(timeoutMs));
          return;
        }
        this.pending.delete(id);
        this.extra.timeouts++;
        reject(new RequestTimeoutError(method, timeoutMs));
      };
      this.pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject, timer: setTimeout(() => expire(false), timeoutMs) });
      stream.write(frame);
    });
  }

  /** A request without an id: the firmware acts on it and answers nothing. */
  notify<M extends Method>(method: M, params: MethodParams<M>): void {
    this.stream?.write(encodeFrame(encodeMessage(method, params)));
  }

  hello(timeoutMs?: number): Promise<Hello> {
    return this.request('hello', {}, timeoutMs);
  }

  /** Asks for the state now; the answer is also the newest state seen, like a streamed one. */
  async getState(): Promise<BridgeState> {
    const state = await this.request('get_state', {});
    this.latest = { state, at: Date.now() };
    return state;
  }

  setTargets(pos: readonly number[], strict = false): Promise<MethodResult<'set_targets'>> {
    return this.request('set_targets', strict ? { pos: [...pos], strict } : { pos: [...pos] });
  }

  async torque(on: boolean): Promise<MethodResult<'torque'>> {
    const answer = await this.request('torque', { on });
    // Said before the caller resumes: whoever shows torque knows it as soon as the caller does.
    this.emit('torque', answer.torque);
    return answer;
  }

  quack(): Promise<MethodResult<'quack'>> {
    return this.request('quack', {});
  }

  /** One heartbeat as a request: the round-trip time in milliseconds. */
  async ping(timeoutMs?: number): Promise<number> {
    const start = process.hrtime.bigint();
    await this.request('heartbeat', {}, timeoutMs);
    return Number(process.hrtime.bigint() - start) / 1e6;
  }

  /** The most recent streamed state and how old it is, if any arrived. */
  lastState(): { readonly state: BridgeState; readonly ageMs: number } | undefined {
    return this.latest && { state: this.latest.state, ageMs: Date.now() - this.latest.at };
  }

  counters(): ClientCounters {
    return { ...this.decoder.counters, ...this.extra };
  }

  /** Detach and drop listeners. Idempotent. */
  close(): void {
    this.detach(new LinkLostError('the client was closed'));
    this.removeAllListeners();
  }

  private takeId(): number {
    const id = this.nextId;
    this.nextId = id >= 0x7fffffff ? 1 : id + 1;
    return id;
  }

  /** Bytes a polled link read from the far end. */
  feed(chunk: Uint8Array): void {
    if (this.stream !== undefined) this.receive(chunk);
  }

  /**
   * The owner's loop is alive: the heartbeat goes now if it is nearly due, and the client's timer
   * starts its period again, so a loop ticking faster than the heartbeat carries every one.
   */
  beat(): void {
    if (this.heartbeat === undefined || performance.now() - this.lastBeatAt < this.heartbeatMs * BEAT_EARLY) return;
    this.sendBeat();
    this.heartbeat.refresh();
  }

  private sendBeat(): void {
    this.lastBeatAt = performance.now();
    this.notify('heartbeat', {});
  }

  private startHeartbeat(): void {
    if (this.heartbeatMs <= 0) return;
    this.sendBeat();
    this.heartbeat = setInterval(() => this.sendBeat(), this.heartbeatMs);
    // The link's own handles keep the process alive; a forgotten client must not.
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  private receive(chunk: Uint8Array): void {
    for (const payload of this.decoder.push(chunk)) {
      const msg = parseIncoming(payload);
      if (msg === undefined) {
        this.extra.json++;
      } else if (msg.kind === 'notification') {
        this.notification(msg.method, msg.params);
      } else {
        this.response(msg.id, msg.result, msg.error);
      }
    }
  }

  private notification(method: string, params: unknown): void {
    if (method === 'state') {
      const state = checkState(params);
      if (state === undefined) {
        this.extra.json++;
        return;
      }
      this.latest = { state, at: Date.now() };
      this.emit('state', state);
    } else if (method === 'fault') {
      const fault = faultSchema.safeParse(params);
      if (fault.success) this.emit('fault', fault.data);
      else this.extra.json++;
    }
    // Other notifications are from a newer firmware; ignoring them is the forward-compatible choice.
  }

  private response(id: number | string | null, result: unknown, error: { code: number; message: string; data?: unknown } | undefined): void {
    const p = typeof id === 'number' ? this.pending.get(id) : undefined;
    if (p === undefined || typeof id !== 'number') {
      this.extra.unmatched++;
      return;
    }
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (error !== undefined) {
      p.reject(new RpcError(p.method, error.code, error.message, error.data));
      return;
    }
    const parsed = METHODS[p.method].result.safeParse(result);
    if (parsed.success) p.resolve(parsed.data);
    else p.reject(new BridgeError(`the firmware's ${p.method} result does not match protocol ${PROTOCOL_VERSION}: ${parsed.error.issues[0]?.message ?? 'invalid'}`));
  }
}
