/**
 * microduck:jsonrpc: a real Microduck behind the serial bridge. Opening says hello (and never
 * switches torque on: nothing moves because a process started). quack and torque are wired to
 * the firmware; walk, turn, kick and search_scan are refused until the policy control loop
 * exists, without sending a single target. A lost link ends the run with a BodyError: by then the
 * firmware's 200 ms watchdog has already cut torque.
 *
 * Settings (BodyOptions.settings): { port: string, baud?: number }.
 */
import { z } from 'zod';
import { BridgeClient } from '../../../bridge/client.js';
import { BridgeError, LinkLostError, RequestTimeoutError, RpcError } from '../../../bridge/errors.js';
import { PROTOCOL_VERSION, type BridgeState, type Hello } from '../../../bridge/protocol.js';
import { DEFAULT_BAUD, SerialLink } from '../../../bridge/serial.js';
import { BodyError, type Body, type BodyKey, type BodyOptions, type Frame, type Intent, type Metrics, type Observation, type VerbResult } from '../../body.js';
import { describeState, stateMetrics } from './describe-state.js';
import { jsonRpcSettings } from './settings.js';
import { logger } from '../../../log.js';

export const JSONRPC_KEY: BodyKey = 'microduck:jsonrpc';

/** Verbs a .duck may name for this body; the ones in NEEDS_POLICY are refused at perform time. */
export const JSONRPC_VERBS = ['quack', 'torque', 'walk', 'turn', 'kick', 'search_scan'] as const;
const NEEDS_POLICY = new Set(['walk', 'turn', 'kick', 'search_scan']);

const HELLO_TIMEOUT_MS = 1000;
/** A streamed state older than this is stale; observe() asks for a fresh one. */
const STALE_STATE_MS = 250;


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

  constructor(
    private readonly client: BridgeClient,
    readonly hello: Hello,
    private readonly link: JsonRpcLink,
  ) {
    client.on('detached', (reason) => {
      if (!this.closed) this.lost ??= reason;
    });
    client.on('state', () => {
      this.acted = false;
    });
  }

  async observe(): Promise<Observation> {
    const state = await this.freshState();
    return { summary: describeState(state), data: { ...state } };
  }

  async perform(intent: Intent, signal?: AbortSignal): Promise<VerbResult> {
    if (NEEDS_POLICY.has(intent.verb)) {
      return { ok: false, summary: `${intent.verb} needs the policy control loop, not yet available on ${JSONRPC_KEY}` };
    }
    if (signal?.aborted === true) return { ok: false, summary: `${intent.verb} cancelled before it was sent` };
    this.assertLinked();
    logger('body').debug({ body: JSONRPC_KEY, verb: intent.verb, port: this.link.label }, 'body: sending');
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

  beginRun(): void {
    this.quacks = 0;
  }

  frame(): Frame {
    return { state: { ...(this.client.lastState()?.state ?? {}) } };
  }

  metrics(): Metrics {
    const last = this.client.lastState();
    const c = this.client.counters();
    return { ...(last ? stateMetrics(last.state) : {}), quacks: this.quacks, link_crc_errors: c.crc, link_dropped_frames: c.crc + c.malformed + c.overlong + c.runt };
  }

  async stop(): Promise<void> {
    // Down: the watchdog has cut torque. Up again after a loss: say it anyway rather than trust
    // that the gap outlasted the watchdog.
    if (!this.client.attached) return;
    try {
      await this.client.torque(false);
    } catch {
      // best effort: if the firmware does not answer, its watchdog cuts torque 200 ms later
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.stop();
    this.closed = true;
    this.client.close();
    await this.link.close();
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

  private bodyError(err: unknown): BodyError {
    if (err instanceof LinkLostError || this.lost !== undefined) {
      return new BodyError(`serial link to ${this.link.label} lost; the firmware's watchdog has cut torque`);
    }
    if (err instanceof RequestTimeoutError) return new BodyError(`the firmware on ${this.link.label} stopped answering (${err.message})`);
    if (err instanceof BridgeError) return new BodyError(err.message);
    return new BodyError(String(err));
  }
}

/** Say hello over an attached client and check that the far end speaks our protocol. */
export async function greet(client: BridgeClient, label: string): Promise<Hello> {
  let hello: Hello;
  try {
    hello = await client.hello(HELLO_TIMEOUT_MS);
  } catch (err) {
    if (err instanceof RequestTimeoutError) {
      throw new BodyError(`no hello from the firmware on ${label} within ${HELLO_TIMEOUT_MS} ms: is it running quackd-fw at the same baud?`);
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
