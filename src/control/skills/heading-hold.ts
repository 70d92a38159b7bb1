/**
 * Heading hold for a walk: the yaw rate a walk adds to its command so the duck keeps the heading
 * it started with. A walk policy veers (the bundled one in the twin: 1–22° over 1.5 m, the sim
 * kit's trained walk 3–29° over 10 s), and a duck that senses nothing ahead walks its veer into
 * the sofa. The trunk yaws with every step (±20° within a stride of the bundled walk), so what is
 * held is the heading averaged over the last gait cycle, not the tick's: held on the tick's, the
 * correction chases the stride and the walk weaves.
 *
 * Pure: the policy skill gives it each tick's yaw (unwrapped here) and sends the verb's command
 * with this vyaw, which the policy's graph clamps to its own range as always.
 */

const wrap = (a: number): number => Math.atan2(Math.sin(a), Math.cos(a));

/** A robot's `heading_hold` setting: `false` walks on the command alone. */
export interface HeadingHoldSettings {
  /** rad/s of vyaw per rad of mean heading error. */
  readonly gain: number;
  /** The most vyaw the hold sends, rad/s. */
  readonly max_vyaw: number;
}

/**
 * Measured on the twin (bench/heading-hold.ts; the bundled walk turns about a third of the vyaw
 * it is sent while it walks, so a veer needs a large command to take back).
 */
export const HEADING_HOLD: HeadingHoldSettings = { gain: 3, max_vyaw: 1 };

export class HeadingHold {
  private readonly window: Float64Array;
  private filled = 0;
  private next = 0;
  private sum = 0;
  private last: number | undefined;
  private turned = 0;

  /** `windowTicks`: ticks in one gait cycle, the window the heading is averaged over. */
  constructor(
    private readonly settings: HeadingHoldSettings,
    windowTicks: number,
  ) {
    this.window = new Float64Array(Math.max(1, Math.round(windowTicks)));
  }

  /** This tick's yaw (rad, wrapped or not); the vyaw to send, rad/s (counter-clockwise positive). */
  update(yaw: number): number {
    this.turned += this.last === undefined ? 0 : wrap(yaw - this.last);
    this.last = yaw;
    const w = this.window;
    if (this.filled === w.length) this.sum -= w[this.next] ?? 0;
    else this.filled += 1;
    w[this.next] = this.turned;
    this.sum += this.turned;
    this.next = (this.next + 1) % w.length;
    const { gain, max_vyaw: max } = this.settings;
    return Math.max(-max, Math.min(max, (-gain * this.sum) / this.filled));
  }
}
