/**
 * How many commands one MQTT client may give: a token bucket per client, so a dashboard's bursts
 * pass and a flood is cut to a trickle the service can carry while it runs. Over the limit a
 * command is not carried out; the first such in a window is answered with a refusal that says
 * so, the rest go unanswered (answering each would be a flood of our own) and are counted. An
 * emergency stop is never limited. Pure: times in, verdicts out.
 */

export interface RateLimitSettings {
  /** Commands a second, sustained. */
  readonly perSecond: number;
  /** Commands at once after a quiet spell. */
  readonly burst: number;
}

export const COMMAND_RATE: RateLimitSettings = { perSecond: 20, burst: 40 };

/** `ok`: carry it out; `refuse`: say no, with why; `drop`: say nothing (already said in this window). */
export type RateVerdict = { readonly kind: 'ok' } | { readonly kind: 'refuse'; readonly message: string } | { readonly kind: 'drop' };

interface Bucket {
  tokens: number;
  at: number;
  /** When this client was last told it was over the limit (CommandRateLimit). */
  toldAt: number;
  /** When the last command held goes on (CommandPacer). */
  releaseAt: number;
}

/** Buckets kept at most: the oldest go first (a client gone for good). */
const MAX_CLIENTS = 1024;

/** One token bucket per client. */
class ClientBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(readonly settings: RateLimitSettings) {}

  /** The client's bucket, refilled to `now`, and whether it had a command's token (then spent). */
  take(client: string, now: number): { readonly bucket: Bucket; readonly took: boolean } {
    const { perSecond, burst } = this.settings;
    let b = this.buckets.get(client);
    if (b === undefined) {
      b = { tokens: burst, at: now, toldAt: -Infinity, releaseAt: now };
      this.buckets.set(client, b);
      const [oldest] = this.buckets.keys();
      if (this.buckets.size > MAX_CLIENTS && oldest !== undefined) this.buckets.delete(oldest);
    }
    b.tokens = Math.min(burst, b.tokens + ((now - b.at) / 1000) * perSecond);
    b.at = now;
    const took = b.tokens >= 1;
    if (took) b.tokens -= 1;
    return { bucket: b, took };
  }
}

export class CommandRateLimit {
  private readonly buckets: ClientBuckets;
  /** Commands not carried out for going over the limit. */
  limited = 0;

  constructor(settings: RateLimitSettings = COMMAND_RATE) {
    this.buckets = new ClientBuckets(settings);
  }

  take(client: string, now: number): RateVerdict {
    const { bucket: b, took } = this.buckets.take(client, now);
    if (took) return { kind: 'ok' };
    this.limited += 1;
    if (now - b.toldAt < 1000) return { kind: 'drop' };
    b.toldAt = now;
    const { perSecond, burst } = this.buckets.settings;
    return { kind: 'refuse', message: `rate limit: at most ${perSecond} commands a second from one client (bursts of ${burst}); this one was not carried out, nor will the next ones be until it slows down (a stop always is)` };
  }
}

/**
 * How long the embedded broker holds one client's command before it reads that client on: nothing
 * within the rate; past it, each command a period of the rate later than the one before, up to
 * `maxHoldMs`. aedes reads a client's next bytes only when every packet of its last read is
 * handled, so a flood is then read about one socket read a `maxHoldMs` instead of as fast as it
 * comes, and the event loop stays free for someone else's stop. Pure: times in, holds out.
 */
export class CommandPacer {
  private readonly buckets: ClientBuckets;

  constructor(
    settings: RateLimitSettings = COMMAND_RATE,
    private readonly maxHoldMs = 1000,
  ) {
    this.buckets = new ClientBuckets(settings);
  }

  holdMs(client: string, now: number): number {
    const { bucket: b, took } = this.buckets.take(client, now);
    if (took) return 0;
    b.releaseAt = Math.min(now + this.maxHoldMs, Math.max(now, b.releaseAt) + 1000 / this.buckets.settings.perSecond);
    return b.releaseAt - now;
  }
}
