/**
 * A stop a jsonrpc duck's firmware is owed. A stop (quackd stop, torque off, a run's end) that
 * could not reach the firmware because its link was down is remembered and sent first thing once
 * the link is back: a blip shorter than the firmware's watchdog leaves torque on otherwise, the
 * heartbeats feed the watchdog again, and the joints stay stiff for as long as the service runs.
 * A body closed still owing it says so (stopOwed), and the pool stops the robot's next body as it
 * opens (body-pool.ts).
 */
import type { BridgeLink } from '../../../bridge/channel.js';
import { LinkLostError, RequestTimeoutError } from '../../../bridge/errors.js';
import { logger } from '../../../log.js';
import { BodyError } from '../../body.js';
import type { LinkWatch } from './link-watch.js';
import { JSONRPC_KEY } from './settings.js';

/** After a try that failed, the next waits this long (a state comes every 20 ms). */
const RETRY_MS = 1000;

export class OwedStop {
  private owed = false;
  private paying = false;
  private payAfter = 0;

  constructor(
    private readonly client: BridgeLink,
    private readonly link: LinkWatch,
    private readonly closed: () => boolean,
  ) {
    // The firmware speaks on a link that is back (it may take a moment to open its end).
    client.on('state', () => void this.pay());
    client.on('attached', () => void this.pay());
  }

  get owing(): boolean {
    return this.owed;
  }

  /**
   * Torque off, confirmed by the firmware, or a BodyError that says why not; a link down, or lost
   * on the way, leaves it owed. Up again after a loss it is said anyway rather than trusting that
   * the gap outlasted the watchdog.
   */
  async send(): Promise<void> {
    if (!this.client.attached) {
      this.owed = true;
      throw new BodyError(`serial link to ${this.link.label} is down: torque off not sent; quackd sends it once the link is back, and the firmware's watchdog cuts it within ${this.link.hello.watchdog_ms} ms`);
    }
    try {
      await this.client.torque(false);
      this.owed = false;
    } catch (err) {
      if (err instanceof LinkLostError || err instanceof RequestTimeoutError) this.owed = true;
      throw this.link.error(err);
    }
  }

  /** The stop the link's loss kept from the firmware; the read-back is reported as any torque answer is. */
  private async pay(): Promise<void> {
    if (!this.owed || this.paying || this.closed() || !this.client.attached || performance.now() < this.payAfter) return;
    this.paying = true;
    const log = { body: JSONRPC_KEY, port: this.link.label };
    try {
      const { torque } = await this.client.torque(false);
      this.owed = false;
      this.payAfter = 0;
      logger('body').info({ ...log, torque }, `torque off sent again as the link came back (a stop had not reached the firmware): the firmware reads torque ${torque ? 'on' : 'off'}`);
    } catch (err) {
      // Still owed: a state a second from now (or the link back again) tries again; said once a spell.
      if (this.payAfter === 0) logger('body').warn({ ...log, err: err instanceof Error ? err.message : String(err) }, 'torque off owed since the link was lost could not be sent yet; quackd tries again');
      this.payAfter = performance.now() + RETRY_MS;
    } finally {
      this.paying = false;
    }
  }
}
