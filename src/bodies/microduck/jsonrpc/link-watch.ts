/**
 * A jsonrpc duck's link as its body watches it: lost, and back. Lost when the worker's client
 * detaches, or when the state stream goes stale and the firmware does not answer a get_state
 * either; the body then reports `link-lost`. Back only when a run's hello answers again (the
 * worker reopens the port; the body never trusts the far end until it says who it is): the same
 * boot is a blip, a new one a firmware that restarted. The hello it holds is the firmware's as it
 * last answered, so every line about the link names the watchdog that is really there.
 */
import type { BridgeLink } from '../../../bridge/channel.js';
import { BridgeError, LinkLostError, RequestTimeoutError } from '../../../bridge/errors.js';
import type { Hello } from '../../../bridge/protocol.js';
import { logger } from '../../../log.js';
import { BodyError, type BodyTrouble } from '../../body.js';
import { jointTableChange } from './control-plant.js';
import { greet } from './greet.js';
import { JSONRPC_KEY } from './settings.js';

/**
 * The state stream counts as stale after this many periods without a state (and never sooner
 * than STREAM_STALE_MIN_MS: a loaded machine delays a few); then a get_state decides.
 */
const STREAM_STALE_PERIODS = 20;
const STREAM_STALE_MIN_MS = 500;

export class LinkWatch {
  private lostWith: Error | undefined;
  private timer: NodeJS.Timeout | undefined;
  private probing = false;

  constructor(
    private readonly client: BridgeLink,
    readonly label: string,
    /** The firmware's hello as it last answered. */
    private said: Hello,
    private readonly closed: () => boolean,
    private readonly report: (trouble: BodyTrouble) => void,
  ) {
    client.on('detached', (reason) => {
      if (this.closed() || this.lostWith !== undefined) return;
      this.lostWith = reason;
      this.report({ kind: 'link-lost', message: this.error(reason).message });
    });
  }

  get hello(): Hello {
    return this.said;
  }

  /** Why the link was lost, until a run's hello finds the firmware again. */
  get lost(): Error | undefined {
    return this.lostWith;
  }

  /**
   * Who is at the far end now, asked at the start of a later run: a firmware that restarted (a
   * reset behind a USB-serial bridge keeps the port) answers with a new boot id, and one that
   * does not answer fails the lease rather than the run's first verb. A link lost since the last
   * run (unplugged while idle) that the worker has reopened is used again once a hello answers
   * with the same joint table. True when a state cached before is not this link's, or not this
   * firmware's.
   */
  async rejoin(): Promise<boolean> {
    const lost = this.lostWith;
    if (lost !== undefined && !this.client.attached) throw this.error(lost);
    const hello = await greet(this.client, this.label, 'it answered the last run: is it powered, or stuck?');
    const change = jointTableChange(this.said, hello);
    if (change !== undefined) throw new BodyError(`the firmware on ${this.label} now answers with ${change}: this body was opened for the old one, and the next run opens it afresh`);
    const log = { body: JSONRPC_KEY, port: this.label, was: this.said.boot, boot: hello.boot };
    const restarted = hello.boot !== this.said.boot;
    if (restarted) logger('body').info(log, `body: the firmware restarted since the last run${lost !== undefined ? ' (the link was lost and came back)' : ''}`);
    else if (lost !== undefined) logger('body').info(log, 'body: the link was lost and came back to the same boot of the firmware (a blip)');
    this.lostWith = undefined;
    this.said = hello;
    return restarted || lost !== undefined;
  }

  /** Between verbs nobody asks the firmware anything: the stream's age is the only sign of life. */
  start(): void {
    if (this.timer !== undefined || this.said.state_hz <= 0) return;
    const staleMs = Math.max(STREAM_STALE_MIN_MS, (STREAM_STALE_PERIODS * 1000) / this.said.state_hz);
    this.timer = setInterval(() => void this.checkStream(staleMs), staleMs / 4);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async checkStream(staleMs: number): Promise<void> {
    if (this.closed() || this.lostWith !== undefined || this.probing || !this.client.attached) return;
    const last = this.client.lastState();
    if (last !== undefined && last.ageMs <= staleMs) return;
    // Stale, or quackd itself was stopped for a while (SIGSTOP): states may sit unread in the
    // port's buffer. Ask once before calling the link lost.
    this.probing = true;
    try {
      await this.client.getState();
    } catch (err) {
      if (this.closed() || this.lostWith !== undefined) return;
      this.lostWith = err instanceof Error ? err : new Error(String(err));
      const why = err instanceof RequestTimeoutError ? `no state for ${Math.round(staleMs)} ms and no answer to get_state` : this.lostWith.message;
      this.report({ kind: 'link-lost', message: `the firmware on ${this.label} went silent (${why}); its watchdog cuts torque` });
    } finally {
      this.probing = false;
    }
  }

  /** A failure on the link as the run hears it: one line, what it means for the duck's torque. */
  error(err: unknown): BodyError {
    if (err instanceof LinkLostError || this.lostWith !== undefined) {
      // Not "has cut": a blip shorter than the watchdog leaves torque on, until the owed stop lands (owed-stop.ts).
      return new BodyError(`serial link to ${this.label} lost; the firmware's watchdog cuts torque within ${this.said.watchdog_ms} ms, and quackd sends torque off once the link is back`);
    }
    if (err instanceof RequestTimeoutError) return new BodyError(`the firmware on ${this.label} stopped answering (${err.message})`);
    if (err instanceof BridgeError) return new BodyError(err.message);
    return new BodyError(String(err));
  }
}
