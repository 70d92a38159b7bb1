/**
 * One BridgeClient, two threads: the client (and so the serial port and its heartbeat) lives in
 * the control worker beside the loop that drives the joints, while the body on the main thread
 * still asks for hello, state, torque and quack and hears about states, faults and a lost link.
 * `serveBridge` answers on a named BroadcastChannel in the worker; `RemoteBridge` is its
 * main-thread mirror with the client's own surface (BridgeLink), so the body cannot tell them
 * apart. Only data crosses: errors travel as their name and facts and are rebuilt on arrival.
 */
import { EventEmitter } from 'node:events';
import { BroadcastChannel } from 'node:worker_threads';
import type { BridgeClient, BridgeClientEvents, ClientCounters } from './client.js';
import { BridgeError, LinkLostError, RequestTimeoutError, RpcError } from './errors.js';
import type { BridgeState, Fault, Hello, MethodResult } from './protocol.js';

/** What a body uses of a bridge client: the client itself, or its mirror across threads. */
export interface BridgeLink {
  readonly attached: boolean;
  on<K extends keyof BridgeClientEvents>(event: K, listener: (...args: BridgeClientEvents[K]) => void): unknown;
  hello(timeoutMs?: number): Promise<Hello>;
  getState(): Promise<BridgeState>;
  torque(on: boolean): Promise<MethodResult<'torque'>>;
  quack(): Promise<MethodResult<'quack'>>;
  lastState(): { readonly state: BridgeState; readonly ageMs: number } | undefined;
  counters(): ClientCounters;
  close(): void;
}

type Call = { readonly id: number; readonly call: 'hello'; readonly timeoutMs?: number } | { readonly id: number; readonly call: 'get_state' | 'quack' | 'close' } | { readonly id: number; readonly call: 'torque'; readonly on: boolean };

/** An error as data, by its class (a thread boundary carries no prototypes), rebuilt on arrival. */
type ErrorFacts =
  | { readonly kind: 'rpc'; readonly message: string; readonly method: string; readonly code: number; readonly remoteMessage: string }
  | { readonly kind: 'timeout'; readonly message: string; readonly method: string; readonly timeoutMs: number }
  | { readonly kind: 'link-lost' | 'bridge'; readonly message: string; readonly hint?: string }
  | { readonly kind: 'other'; readonly message: string };

type Push =
  | { readonly kind: 'reply'; readonly id: number; readonly result: unknown }
  | { readonly kind: 'error'; readonly id: number; readonly error: ErrorFacts }
  | { readonly kind: 'state'; readonly state: BridgeState; readonly at: number; readonly counters: ClientCounters }
  | { readonly kind: 'fault'; readonly fault: Fault; readonly counters: ClientCounters }
  | { readonly kind: 'torque'; readonly on: boolean }
  | { readonly kind: 'attached' }
  | { readonly kind: 'detached'; readonly error: ErrorFacts };

function facts(err: unknown): ErrorFacts {
  if (err instanceof RpcError) return { kind: 'rpc', message: err.message, method: err.method, code: err.code, remoteMessage: err.remoteMessage };
  if (err instanceof RequestTimeoutError) return { kind: 'timeout', message: err.message, method: err.method, timeoutMs: err.timeoutMs };
  const hint = err instanceof BridgeError && err.hint !== undefined ? { hint: err.hint } : {};
  if (err instanceof LinkLostError) return { kind: 'link-lost', message: err.message, ...hint };
  if (err instanceof BridgeError) return { kind: 'bridge', message: err.message, ...hint };
  return { kind: 'other', message: err instanceof Error ? err.message : String(err) };
}

function rebuild(f: ErrorFacts): Error {
  switch (f.kind) {
    case 'rpc':
      return new RpcError(f.method, f.code, f.remoteMessage);
    case 'timeout':
      return new RequestTimeoutError(f.method, f.timeoutMs);
    case 'link-lost':
      return new LinkLostError(f.message, f.hint);
    case 'bridge':
      return new BridgeError(f.message, f.hint);
    case 'other':
      return new Error(f.message);
  }
}

/**
 * States cross to the main thread at most this often, a change of torque at once: the body there
 * wants the battery, the torque and a sign of life (its staleness bound is half a second), not
 * every frame of a 50 Hz stream, and each crossing wakes the main thread's event loop.
 */
const FORWARD_EVERY_MS = 100;

/**
 * Worker side: answers the body's calls with `client` and pushes what the client hears. `close`
 * is the caller's own shutdown (the serial link must be closed before the worker goes, or the
 * port stays locked). Returns a function that stops serving.
 */
export function serveBridge(client: BridgeClient, name: string, close: () => Promise<void>): () => void {
  const channel = new BroadcastChannel(name);
  channel.unref();
  let open = true;
  const push = (message: Push): void => {
    if (open) channel.postMessage(message);
  };
  const stop = (): void => {
    if (!open) return;
    open = false;
    channel.close();
  };
  const answer = (id: number, p: Promise<unknown>): void =>
    void p.then(
      (result) => push({ kind: 'reply', id, result: result ?? null }),
      (err: unknown) => push({ kind: 'error', id, error: facts(err) }),
    );
  channel.onmessage = (event) => {
    const m = (event as { readonly data: Call }).data;
    if (m.call === 'hello') answer(m.id, client.hello(m.timeoutMs));
    else if (m.call === 'get_state') answer(m.id, client.getState());
    else if (m.call === 'quack') answer(m.id, client.quack());
    else if (m.call === 'torque') answer(m.id, client.torque(m.on));
    // The answer goes out before the channel closes: the body waits for it.
    else answer(m.id, close().finally(() => setImmediate(stop)));
  };
  let forwardedAt = Number.NEGATIVE_INFINITY;
  let forwardedTorque: boolean | undefined;
  client.on('state', (state) => {
    const now = performance.now();
    if (now - forwardedAt < FORWARD_EVERY_MS && state.torque === forwardedTorque) return;
    forwardedAt = now;
    forwardedTorque = state.torque;
    push({ kind: 'state', state, at: Date.now(), counters: client.counters() });
  });
  client.on('fault', (fault) => push({ kind: 'fault', fault, counters: client.counters() }));
  // Pushed ahead of the torque call's reply, so the main thread knows before the caller resumes.
  client.on('torque', (on) => push({ kind: 'torque', on }));
  client.on('attached', () => push({ kind: 'attached' }));
  client.on('detached', (reason) => push({ kind: 'detached', error: facts(reason) }));
  return stop;
}

const ZERO: ClientCounters = { ok: 0, crc: 0, malformed: 0, overlong: 0, runt: 0, cut: 0, json: 0, unmatched: 0, timeouts: 0 };

/** Main side: a BridgeLink whose client lives in the worker that serves `name`. */
export class RemoteBridge extends EventEmitter<BridgeClientEvents> implements BridgeLink {
  private readonly channel: BroadcastChannel;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout }>();
  private nextId = 1;
  private latest: { state: BridgeState; at: number } | undefined;
  private counted: ClientCounters = ZERO;
  private up = true;
  private closed = false;

  /**
   * `timeoutMs`: the client's own request timeout in the worker; this side gives up `graceMs`
   * later, for a worker that died and will never answer.
   */
  constructor(
    name: string,
    private readonly timeoutMs: number,
    private readonly graceMs = 2000,
  ) {
    super();
    this.channel = new BroadcastChannel(name);
    this.channel.unref();
    this.channel.onmessage = (event) => this.receive((event as { readonly data: Push }).data);
  }

  get attached(): boolean {
    return this.up && !this.closed;
  }

  hello(timeoutMs?: number): Promise<Hello> {
    return this.call({ id: 0, call: 'hello', ...(timeoutMs !== undefined ? { timeoutMs } : {}) }, timeoutMs) as Promise<Hello>;
  }

  async getState(): Promise<BridgeState> {
    const state = (await this.call({ id: 0, call: 'get_state' })) as BridgeState;
    this.latest = { state, at: Date.now() };
    return state;
  }

  torque(on: boolean): Promise<MethodResult<'torque'>> {
    return this.call({ id: 0, call: 'torque', on }) as Promise<MethodResult<'torque'>>;
  }

  quack(): Promise<MethodResult<'quack'>> {
    return this.call({ id: 0, call: 'quack' }) as Promise<MethodResult<'quack'>>;
  }

  /** Asks the worker to close the client and its serial link, and waits until it has. */
  async closeLink(): Promise<void> {
    if (this.closed) return;
    await this.call({ id: 0, call: 'close' }).catch(() => undefined);
  }

  lastState(): { readonly state: BridgeState; readonly ageMs: number } | undefined {
    return this.latest && { state: this.latest.state, ageMs: Date.now() - this.latest.at };
  }

  counters(): ClientCounters {
    return { ...this.counted };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(new LinkLostError('the client was closed'));
    }
    this.channel.close();
    this.removeAllListeners();
  }

  private call(message: Call, timeoutMs = this.timeoutMs): Promise<unknown> {
    if (this.closed) return Promise.reject(new LinkLostError('the client was closed'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RequestTimeoutError(message.call, timeoutMs));
      }, timeoutMs + this.graceMs);
      timer.unref();
      this.pending.set(id, { resolve, reject, timer });
      this.channel.postMessage({ ...message, id });
    });
  }

  private receive(m: Push): void {
    if (this.closed) return;
    if (m.kind === 'reply' || m.kind === 'error') {
      const p = this.pending.get(m.id);
      if (p === undefined) return;
      this.pending.delete(m.id);
      clearTimeout(p.timer);
      if (m.kind === 'reply') p.resolve(m.result);
      else p.reject(rebuild(m.error));
    } else if (m.kind === 'state') {
      this.latest = { state: m.state, at: m.at };
      this.counted = m.counters;
      this.emit('state', m.state);
    } else if (m.kind === 'fault') {
      this.counted = m.counters;
      this.emit('fault', m.fault);
    } else if (m.kind === 'torque') {
      this.emit('torque', m.on);
    } else if (m.kind === 'attached') {
      this.up = true;
      this.emit('attached');
    } else {
      this.up = false;
      this.emit('detached', rebuild(m.error));
    }
  }
}
