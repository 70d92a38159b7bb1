/**
 * microduck:jsonrpc: a real Microduck behind the serial bridge. Opening says hello (and never
 * switches torque on: nothing moves because a process started). quack and torque are wired to
 * the firmware; walk, turn, kick and search_scan are refused until the policy control loop
 * exists, without sending a single target. A lost link ends the run with a BodyError: by then the
 * firmware's 200 ms watchdog has already cut torque. While anyone listens (onTrouble), the body
 * watches the link between verbs too: a detach, or a state stream that goes stale and a firmware
 * that does not answer either, is reported as `link-lost`; a firmware `fault` notification as
 * `fault`. Each run after the first says hello again, so the run knows which boot of the firmware
 * it talks to (`link`): a firmware that restarted behind a port that stayed has a new boot id.
 *
 * Settings (BodyOptions.settings): { port: string, baud?: number }.
 */
import { z } from 'zod';
import { BridgeClient } from '../../../bridge/client.js';
import { BridgeError, LinkLostError, RequestTimeoutError, RpcError } from '../../../bridge/errors.js';
import { PROTOCOL_VERSION, type BridgeState, type Fault, type Hello } from '../../../bridge/protocol.js';
import { DEFAULT_BAUD, SerialLink } from '../../../bridge/serial.js';
import { BodyError, type Body, type BodyKey, type BodyLink, type BodyTrouble, type BodyOptions, type Frame, type Intent, type Metrics, type Observation, type VerbResult } from '../../body.js';
import { describeState, stateMetrics } from './describe-state.js';
import { NEEDS_POLICY, jsonRpcSettings } from './settings.js';
import { logger } from '../../../log.js';

export const JSONRPC_KEY: BodyKey = 'microduck:jsonrpc';


const HELLO_TIMEOUT_MS = 1000;
/** A streamed state older than this is stale; observe() asks for a fresh one. */
const STALE_STATE_MS = 250;
/**
 * The state stream counts as stale after this many periods without a state (and never sooner
 * than STREAM_STALE_MIN_MS: a loaded machine delays a few); then a get_state decides.
 */
const STREAM_STALE_PERIODS = 20;
const STREAM_STALE_MIN_MS = 500;


const torqueArgs = z.object({ on: z.boolean() });

/** Describes a close hook so the body can be built on any connected client (serial or a test stream). */
export interface JsonRpcLink {
  readonly label: string;
  close(): Promise<void>;
}

export class JsonRpcBody implements Body {
  readonly key = JSONRPC_KEY;
  private lost: Error | undefined;
  private closed = false;
  /** A verb changed the firmware's state since the last state arrived: the cached one is old news. */
  private acted = false;
  /** Quacks this body made since it opened: the firmware's own count runs from its boot. */
  private quacks = 0;
  private readonly listeners = new Set<(trouble: BodyTrouble) => void>();
  private watch: NodeJS.Timeout | undefined;
  private probing = false;
  /** The hello that opened the body is the first run's: only later runs say hello again. */
  private greeted = true;

  constructor(
    private readonly client: BridgeClient,
    private hello: Hello,
    private readonly port: JsonRpcLink,
  ) {
    client.on('detached', (reason) => {
      if (this.closed || this.lost !== undefined) return;
      this.lost = reason;
      this.report({ kind: 'link-lost', message: this.bodyError(reason).message });
    });
    client.on('state', () => {
      this.acted = false;
    });
    client.on('fault', (fault) => {
      if (!this.closed) this.report({ kind: 'fault', message: faultLine(fault) });
    });
  }

  onTrouble(listener: (trouble: BodyTrouble) => void): () => void {
    this.listeners.add(listener);
    this.startWatch();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopWatch();
    };
  }

  async observe(): Promise<Observation> {
    const state = await this.freshState();
    return { summary: describeState(state), data: { ...state } };
  }

  async perform(intent: Intent, signal?: AbortSignal): Promise<VerbResult> {
    if (NEEDS_POLICY[intent.verb] !== undefined) {
      return { ok: false, summary: `${intent.verb} needs the policy control loop, not yet available on ${JSONRPC_KEY}` };
    }
    if (signal?.aborted === true) return { ok: false, summary: `${intent.verb} cancelled before it was sent` };
    this.assertLinked();
    logger('body').debug({ body: JSONRPC_KEY, verb: intent.verb, port: this.port.label }, 'body: sending');
    try {
      if (intent.verb === 'quack') {
        await this.client.quack();
        this.quacks += 1;
        await this.settle();
        return { ok: true, summary: 'quacked', data: { quacks: this.quacks } };
      }
      if (intent.verb === 'torque') {
        const args = torqueArgs.safeParse(intent.args);
        if (!args.success) return { ok: false, summary: 'torque needs on: true or false' };
        const r = await this.client.torque(args.data.on);
        await this.settle();
        return { ok: true, summary: r.torque ? 'torque on: holding the current pose' : 'torque off: limp', data: { torque: r.torque } };
      }
    } catch (err) {
      if (err instanceof RpcError) return { ok: false, summary: `${intent.verb}: ${err.remoteMessage}` };
      throw this.bodyError(err);
    }
    return { ok: false, summary: `${intent.verb} is not a verb of ${JSONRPC_KEY}` };
  }

  get link(): BodyLink {
    return { device: this.port.label, firmware: this.hello.firmware, board: this.hello.board, boot: this.hello.boot };
  }

  /**
   * Per-run counters start again, and a held body asks who is at the far end now: a firmware
   * that restarted (a reset behind a USB-serial bridge keeps the port) answers with a new boot id,
   * and one that does not answer fails the lease rather than the run's first verb.
   */
  async beginRun(): Promise<void> {
    this.quacks = 0;
    if (this.greeted) {
      this.greeted = false;
      return;
    }
    this.assertLinked();
    const hello = await greet(this.client, this.port.label, 'it answered the last run: is it powered, or stuck?');
    if (hello.boot !== this.hello.boot) {
      logger('body').info({ body: JSONRPC_KEY, port: this.port.label, was: this.hello.boot, boot: hello.boot }, 'body: the firmware restarted since the last run');
      // A state cached from the old boot is not this firmware's.
      this.acted = true;
    }
    this.hello = hello;
  }

  frame(): Frame {
    return { state: { ...(this.client.lastState()?.state ?? {}) } };
  }

  metrics(): Metrics {
    const last = this.client.lastState();
    const c = this.client.counters();
    return { ...(last ? stateMetrics(last.state) : {}), quacks: this.quacks, link_crc_errors: c.crc, link_dropped_frames: c.crc + c.malformed + c.overlong + c.runt };
  }

  /**
   * Torque off, confirmed by the firmware, or a BodyError that says why not (the run's
   * transcript records it): a dead link must never read as a clean stop.
   */
  async stop(): Promise<void> {
    // Down: the watchdog has cut torque, but quackd could not say so itself.
    if (!this.client.attached) {
      throw new BodyError(`serial link to ${this.port.label} is down: torque off not sent; the firmware's watchdog cuts it within ${this.hello.watchdog_ms} ms`);
    }
    // Up again after a loss: say it anyway rather than trust that the gap outlasted the watchdog.
    try {
      await this.client.torque(false);
    } catch (err) {
      throw this.bodyError(err);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.stopWatch();
    // Best effort here: a caller that needs to know whether torque went off calls stop() first.
    await this.stop().catch(() => undefined);
    this.closed = true;
    this.client.close();
    await this.port.close();
  }

  /**
   * After a verb, fetch the state it left, so that the frame, the metrics a success check reads
   * and the next observation all include it (a streamed state can predate it by a whole period).
   * Best effort: if this fails, `acted` stays set and the next observe() asks again.
   */
  private async settle(): Promise<void> {
    this.acted = true;
    await this.freshState().catch(() => undefined);
  }

  private async freshState(): Promise<BridgeState> {
    this.assertLinked();
    const last = this.client.lastState();
    if (!this.acted && last !== undefined && last.ageMs <= STALE_STATE_MS) return last.state;
    try {
      const state = await this.client.getState();
      this.acted = false;
      return state;
    } catch (err) {
      throw this.bodyError(err);
    }
  }

  private assertLinked(): void {
    if (this.closed) throw new BodyError(`${JSONRPC_KEY} is closed`);
    if (this.lost !== undefined) throw this.bodyError(this.lost);
  }

  private report(trouble: BodyTrouble): void {
    for (const listener of [...this.listeners]) listener(trouble);
  }

  /** Between verbs nobody asks the firmware anything: the stream's age is the only sign of life. */
  private startWatch(): void {
    if (this.watch !== undefined || this.hello.state_hz <= 0) return;
    const staleMs = Math.max(STREAM_STALE_MIN_MS, (STREAM_STALE_PERIODS * 1000) / this.hello.state_hz);
    this.watch = setInterval(() => void this.checkStream(staleMs), staleMs / 4);
    this.watch.unref();
  }

  private stopWatch(): void {
    if (this.watch !== undefined) clearInterval(this.watch);
    this.watch = undefined;
  }

  private async checkStream(staleMs: number): Promise<void> {
    if (this.closed || this.lost !== undefined || this.probing || !this.client.attached) return;
    const last = this.client.lastState();
    if (last !== undefined && last.ageMs <= staleMs) return;
    // Stale, or quackd itself was stopped for a while (SIGSTOP): states may sit unread in the
    // port's buffer. Ask once before calling the link lost.
    this.probing = true;
    try {
      await this.client.getState();
    } catch (err) {
      if (this.closed || this.lost !== undefined) return;
      this.lost = err instanceof Error ? err : new Error(String(err));
      const why = err instanceof RequestTimeoutError ? `no state for ${Math.round(staleMs)} ms and no answer to get_state` : this.lost.message;
      this.report({ kind: 'link-lost', message: `the firmware on ${this.port.label} went silent (${why}); its watchdog cuts torque` });
    } finally {
      this.probing = false;
    }
  }

  private bodyError(err: unknown): BodyError {
    if (err instanceof LinkLostError || this.lost !== undefined) {
      return new BodyError(`serial link to ${this.port.label} lost; the firmware's watchdog has cut torque`);
    }
    if (err instanceof RequestTimeoutError) return new BodyError(`the firmware on ${this.port.label} stopped answering (${err.message})`);
    if (err instanceof BridgeError) return new BodyError(err.message);
    return new BodyError(String(err));
  }
}

/** `firmware fault (watchdog): no heartbeat within the watchdog period: torque off`. */
function faultLine(fault: Fault): string {
  return `firmware fault (${fault.code}): ${fault.message}${fault.torque || /torque off/.test(fault.message) ? '' : '; torque off'}`;
}

/** Say hello over an attached client and check that the far end speaks our protocol. */
export async function greet(client: BridgeClient, label: string, silentHint = 'is it running quackd-fw at the same baud?'): Promise<Hello> {
  let hello: Hello;
  try {
    hello = await client.hello(HELLO_TIMEOUT_MS);
  } catch (err) {
    if (err instanceof RequestTimeoutError) {
      throw new BodyError(`no hello from the firmware on ${label} within ${HELLO_TIMEOUT_MS} ms: ${silentHint}`);
    }
    throw new BodyError(err instanceof Error ? err.message : String(err));
  }
  if (hello.protocol !== PROTOCOL_VERSION) {
    throw new BodyError(`the firmware on ${label} speaks protocol ${hello.protocol}; quackd speaks ${PROTOCOL_VERSION}: update one of them`);
  }
  return hello;
}

export async function createJsonRpcBody(options: BodyOptions): Promise<Body> {
  const settings = jsonRpcSettings.safeParse(options.settings ?? {});
  if (!settings.success) {
    if (settings.error.issues.some((i) => i.path[0] === 'baud')) {
      throw new BodyError(`${JSONRPC_KEY}: --baud must be a positive whole number (default ${DEFAULT_BAUD})`);
    }
    throw new BodyError(`${JSONRPC_KEY} needs a serial port: pass --port /dev/serial/by-id/<your duck> (and --baud if not ${DEFAULT_BAUD})`);
  }
  const { port, baud = DEFAULT_BAUD } = settings.data;
  const client = new BridgeClient();
  let link: SerialLink;
  try {
    link = await SerialLink.open(client, { path: port, baud });
  } catch (err) {
    client.close();
    const e = err instanceof BridgeError ? err : new BridgeError(String(err));
    throw new BodyError(`${e.message}${e.hint !== undefined ? ` (${e.hint})` : ''}`);
  }
  try {
    const hello = await greet(client, port);
    return new JsonRpcBody(client, hello, { label: port, close: () => link.close() });
  } catch (err) {
    client.close();
    await link.close();
    throw err;
  }
}
